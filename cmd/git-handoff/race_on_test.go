//go:build race

package main

// raceBuild is true when the tests run under the race detector.
const raceBuild = true
