package agenttest

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// OpenCodeServeReady waits, up to within, until `opencode serve` at base
// (http://host:port) answers a request for dir. The first request a
// just-started server accepts can go unanswered for good (every time
// here; the next one is answered in seconds), so each try is given a
// short wait that doubles, from one second to half a minute, rather than
// one long wait spent on that first request. The request lists dir's
// sessions, which changes nothing, so a try given up on does no harm; a
// test then creates its sessions with one request each.
func OpenCodeServeReady(base, dir string, within time.Duration) error {
	wait := time.Second
	var err error
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var resp *http.Response
		resp, err = (&http.Client{Timeout: wait}).Get(base + "/session?directory=" + url.QueryEscape(dir))
		if err != nil {
			// Refused: not listening yet. Timed out: the wait doubles.
			if os.IsTimeout(err) && wait < 30*time.Second {
				wait *= 2
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		err = fmt.Errorf("GET /session: %s", resp.Status)
	}
	return fmt.Errorf("opencode serve at %s never answered within %v: %v", base, within, err)
}
