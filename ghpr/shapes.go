package ghpr

import "github.com/git-handoff/git-handoff/ghpr/prdata"

// The client speaks in prdata's shapes; these names let a caller of the
// client use one import.
type (
	Repo             = prdata.Repo
	PR               = prdata.PR
	Facts            = prdata.Facts
	Checks           = prdata.Checks
	Check            = prdata.Check
	Thread           = prdata.Thread
	OwnershipInfo    = prdata.OwnershipInfo
	Transfer         = prdata.Transfer
	AuthError        = prdata.AuthError
	RateLimitError   = prdata.RateLimitError
	GraphQLError     = prdata.GraphQLError
	GraphQLErrorItem = prdata.GraphQLErrorItem
)

// The same values as prdata's, so errors.Is matches either name.
var (
	ErrNoPR    = prdata.ErrNoPR
	ErrNotOpen = prdata.ErrNotOpen
	ErrNoToken = prdata.ErrNoToken
)

const (
	DefaultHost     = prdata.DefaultHost
	OwnershipMarker = prdata.OwnershipMarker
	BucketFail      = prdata.BucketFail
	BucketPending   = prdata.BucketPending
	BucketPass      = prdata.BucketPass
	BucketSkipping  = prdata.BucketSkipping
)

func ParseRemoteURL(raw string) (Repo, error)        { return prdata.ParseRemoteURL(raw) }
func ParseRepo(s, host string) (Repo, error)         { return prdata.ParseRepo(s, host) }
func ParsePRRef(s string) (Repo, int, error)         { return prdata.ParsePRRef(s) }
func RenderOwnershipComment(in OwnershipInfo) string { return prdata.RenderOwnershipComment(in) }
func BucketCheckRun(status, conclusion string) string {
	return prdata.BucketCheckRun(status, conclusion)
}
func BucketStatus(state string) string { return prdata.BucketStatus(state) }
func ErrorHint(err error) string       { return prdata.ErrorHint(err) }
