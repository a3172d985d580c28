package refstore

// SetMaxPushArgs sets the bytes one git push is given until the returned
// function puts the bound back.
func SetMaxPushArgs(n int) (restore func()) {
	old := maxPushArgs
	maxPushArgs = n
	return func() { maxPushArgs = old }
}

// MaxPushArgs is the bound a real push splits at.
func MaxPushArgs() int { return maxPushArgs }
