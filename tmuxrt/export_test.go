package tmuxrt

import "context"

// Run lets the tests drive tmux directly (send keys).
func (s Server) Run(ctx context.Context, args ...string) (string, error) { return s.run(ctx, args...) }
