package archive

import "context"

// Build returns the tree of base ("" for none) with entries put in,
// moving no ref: for a caller that moves the month's ref itself, in a
// transaction or a push of its own (sync, which retires records and moves
// the month on both sides at once).
func Build(ctx context.Context, st Store, base string, entries []Entry) (string, error) {
	if len(entries) == 0 {
		return base, nil
	}
	if err := checkEntries(ctx, st, entries); err != nil {
		return "", err
	}
	return st.BuildTree(ctx, base, entries)
}
