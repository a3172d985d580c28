package handoff

import (
	"github.com/git-handoff/git-handoff/transcript"
)

// The agent's own transcript (package transcript) gives the last reply when
// its hook does not (Copilot's Stop, and every agent's PreCompact), and the
// end of the conversation an automatic handoff or a replacement quotes.

func lastReply(harnessName, path string) (string, error) {
	return transcript.LastReply(harnessName, path)
}

func transcriptTail(harnessName, path string) (string, error) {
	return transcript.Excerpt(harnessName, path, autoTranscriptBytes)
}
