// Command fakegithub runs ghprtest's fake GitHub as a process for end-to-end
// scripts. Run it without arguments for usage.
package main

import "github.com/git-handoff/git-handoff/ghpr/ghprtest"

func main() { ghprtest.Main() }
