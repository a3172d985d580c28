package sim

import "context"

// Shrink drops steps from a failing list while a violation of kind still
// occurs (delta debugging: chunks halving down to single steps), and
// returns the smaller list with the violation it still shows.
func Shrink(ctx context.Context, cfg Config, steps []Step, kind string) ([]Step, Violation) {
	cfg.StopAtFirst, cfg.Log = false, nil
	fails := func(s []Step) (Violation, bool) {
		rep := Run(ctx, cfg, s)
		for _, v := range rep.Violations {
			if v.Kind == kind {
				return v, true
			}
		}
		return Violation{}, false
	}
	cur := steps
	last, ok := fails(cur)
	if !ok {
		return cur, last
	}
	// A violation found at step n needs nothing after it.
	if last.Step >= 0 && last.Step+1 < len(cur) {
		if v, ok := fails(cur[:last.Step+1]); ok {
			cur, last = cur[:last.Step+1], v
		}
	}
	for chunk := len(cur) / 2; chunk >= 1 && ctx.Err() == nil; {
		removed := false
		for i := 0; i+chunk <= len(cur) && ctx.Err() == nil; {
			try := append(append([]Step(nil), cur[:i]...), cur[i+chunk:]...)
			if v, ok := fails(try); ok {
				cur, last, removed = try, v, true
				continue
			}
			i += chunk
		}
		if !removed || chunk > len(cur)/2 {
			chunk /= 2
		}
	}
	return cur, last
}
