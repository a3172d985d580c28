//go:build race

package agenttest

const raceBuild = true
