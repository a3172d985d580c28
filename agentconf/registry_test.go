package agentconf

import "testing"

// Each registry entry builds the agent it is named for.
func TestRegistryNamesWhatItBuilds(t *testing.T) {
	for i, a := range agents() {
		if a.name != registry[i].name {
			t.Errorf("registry entry %q builds %q", registry[i].name, a.name)
		}
	}
}
