package view

import (
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
)

// Lease is one lease, as `lease list`, `lease show`, the other lease
// commands and the MCP lease tools give it.
type Lease struct {
	Key        string        `json:"key"`
	Kind       string        `json:"kind"`
	State      string        `json:"state"`
	Session    string        `json:"session"`
	Owner      string        `json:"owner"`
	Agent      string        `json:"agent"`
	TTL        string        `json:"ttl"`
	TTLSeconds float64       `json:"ttlSeconds"`
	Note       string        `json:"note"`
	TakenAt    time.Time     `json:"takenAt"`
	RenewedAt  time.Time     `json:"renewedAt"`
	Offline    bool          `json:"offline"`
	Mine       bool          `json:"mine"`
	FreesAt    *time.Time    `json:"freesAt"`
	FreesIn    *float64      `json:"freesInSeconds"`
	Expired    bool          `json:"expired"`
	Archived   bool          `json:"archived"`
	Ref        string        `json:"ref"`
	Blob       string        `json:"blob"`
	History    []lease.Event `json:"history"`
}

// OfLease shapes a lease as this clone sees it; FreesIn counts from now.
func OfLease(v lease.View, now time.Time) Lease {
	j := Lease{
		Key: v.Record.Key, Kind: v.Key.Kind, State: v.State, Session: v.Session, Owner: v.Owner, Agent: v.Agent,
		TTL: v.TTL().String(), TTLSeconds: v.TTL().Seconds(), Note: v.Note, TakenAt: v.TakenAt, RenewedAt: v.RenewedAt,
		Offline: v.Offline, Mine: v.Mine, Expired: v.Expired, Archived: v.Archived, Ref: v.Ref, Blob: v.OID, History: NonNil(v.History),
	}
	if !v.FreesAt.IsZero() {
		at := v.FreesAt.UTC()
		in := max(0, at.Sub(now).Seconds())
		j.FreesAt, j.FreesIn = &at, &in
	}
	return j
}

// LeaseResult is the result of `lease take`, `renew`, `release` and
// `break`, and of lease_take and lease_release.
type LeaseResult struct {
	Leases  []LeaseOutcome `json:"leases"`
	Where   string         `json:"where"`
	Offline bool           `json:"offline"`
	Session string         `json:"session"`
	Notices []string       `json:"notices"`
}

// LeaseOutcome is what an operation did to one key.
type LeaseOutcome struct {
	Key    string `json:"key"`
	Action string `json:"action"`
	From   string `json:"from,omitempty"`
	Lease  Lease  `json:"lease"`
}

// OfLeaseResult shapes a lease workflow's result, with notices in place
// of its own.
func OfLeaseResult(res handoff.LeaseResult, notices []string, now time.Time) LeaseResult {
	out := LeaseResult{Leases: []LeaseOutcome{}, Where: res.Where, Offline: res.Offline, Session: res.Session, Notices: NonNil(notices)}
	for _, o := range res.Leases {
		v := lease.View{Stored: o.Lease, Key: o.Key, Mine: o.Lease.Held() && o.Lease.Session == res.Session}
		out.Leases = append(out.Leases, LeaseOutcome{Key: o.Key.String(), Action: o.Action, From: o.From, Lease: OfLease(v, now)})
	}
	return out
}

// LeaseList is the result of `lease list` and lease_list.
type LeaseList struct {
	Leases  []Lease  `json:"leases"`
	Where   string   `json:"where"`
	Session string   `json:"session"`
	Notices []string `json:"notices"`
}

// OfLeaseList shapes the leases listed, with notices in place of the
// listing's own.
func OfLeaseList(vs handoff.LeaseViews, notices []string, now time.Time) LeaseList {
	out := LeaseList{Leases: []Lease{}, Where: vs.Where, Session: vs.Session, Notices: NonNil(notices)}
	for _, v := range vs.Leases {
		out.Leases = append(out.Leases, OfLease(v, now))
	}
	return out
}
