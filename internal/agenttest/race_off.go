//go:build !race

package agenttest

const raceBuild = false
