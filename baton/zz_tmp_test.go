package baton

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

func TestZZTime(t *testing.T) {
	repo := os.Getenv("ZZ_REPO")
	if repo == "" {
		t.Skip()
	}
	ctx := context.Background()
	st, _ := refstore.Open(ctx, repo, refstore.Options{})
	Eligible(ctx, st, "me@example.com", "main")
	time.Sleep(100 * time.Millisecond)
	Eligible(ctx, st, "me@example.com", "main")
	var clean, dirty time.Duration
	for i := 0; i < 20; i++ {
		t0 := time.Now()
		Eligible(ctx, st, "me@example.com", "main")
		clean += time.Since(t0)
		exec.Command("git", "-C", repo, "update-ref", "refs/ao/handoffs/shared/owner0@example.com/zz", "HEAD").Run()
		time.Sleep(60 * time.Millisecond)
		t0 = time.Now()
		Eligible(ctx, st, "me@example.com", "main")
		dirty += time.Since(t0)
		time.Sleep(60 * time.Millisecond)
	}
	t.Logf("clean %v dirty %v", clean/20, dirty/20)
}
