package refstore

// wildmatch matches text against a glob as git's wildmatch does with
// WM_PATHNAME (and WM_CASEFOLD when fold): "*" and "?" stop at "/", "**"
// between slashes (or at either end) crosses them, "[...]" classes with
// "!" or "^" negation, ranges and [:name:], "\" quotes. includeIf gitdir:
// and onbranch: patterns mean what they mean to git only with git's
// matcher.
func wildmatch(pattern, text string, fold bool) bool {
	return doWild(pattern, 0, text, fold) == wmMatch
}

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

func doWild(p string, pi int, t string, fold bool) int {
	ti := 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		var tc byte
		if ti < len(t) {
			tc = t[ti]
		} else if pc != '*' {
			return wmAbortAll
		}
		if fold {
			tc, pc = lower(tc), lower(pc)
		}
		switch pc {
		case '\\':
			pi++
			if pi >= len(p) {
				return wmNoMatch
			}
			pc = p[pi]
			if fold {
				pc = lower(pc)
			}
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := false
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/') {
					if pi < len(p) && p[pi] == '/' && doWild(p, pi+1, t[ti:], fold) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				}
			}
			if pi == len(p) {
				if !matchSlash && indexByte(t[ti:], '/') >= 0 {
					return wmAbortToStarStar
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// One "*" then "/": the rest of this directory's name.
				j := indexByte(t[ti:], '/')
				if j < 0 {
					return wmAbortAll
				}
				ti += j
				continue // the loop consumes both slashes
			}
			for ; ti < len(t); ti++ {
				m := doWild(p, pi, t[ti:], fold)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && t[ti] == '/' {
					return wmAbortToStarStar
				}
			}
			return wmAbortAll
		case '[':
			m, next := matchClass(p, pi+1, tc, fold)
			if m == wmAbortAll {
				return wmAbortAll
			}
			if m != wmMatch || tc == '/' {
				return wmNoMatch
			}
			pi = next
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(t) {
		return wmNoMatch
	}
	return wmMatch
}

// matchClass matches tc against the class starting at p[pi] (after "[");
// it returns the index of the closing "]".
func matchClass(p string, pi int, tc byte, fold bool) (int, int) {
	at := func(i int) byte {
		if i < len(p) {
			return p[i]
		}
		return 0
	}
	pc := at(pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = at(pi)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return wmAbortAll, pi
		}
		switch {
		case pc == '\\':
			pi++
			pc = at(pi)
			if pc == 0 {
				return wmAbortAll, pi
			}
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(pi+1) != 0 && at(pi+1) != ']':
			pi++
			pc = at(pi)
			if pc == '\\' {
				pi++
				pc = at(pi)
				if pc == 0 {
					return wmAbortAll, pi
				}
			}
			if tc <= pc && tc >= prev {
				matched = true
			} else if fold && tc >= 'a' && tc <= 'z' {
				up := tc - 'a' + 'A'
				if up <= pc && up >= prev {
					matched = true
				}
			}
			pc = 0 // no range may start at a range's end
		case pc == '[' && at(pi+1) == ':':
			end := pi + 2
			for end < len(p) && p[end] != ']' {
				end++
			}
			if end >= len(p) {
				return wmAbortAll, pi
			}
			if end-pi-2 == 0 || p[end-1] != ':' {
				// Not a class name: a literal "[".
				if tc == '[' {
					matched = true
				}
				break
			}
			name := p[pi+2 : end-1]
			ok, known := inClass(name, tc, fold)
			if !known {
				return wmAbortAll, pi
			}
			if ok {
				matched = true
			}
			pi = end
			pc = 0
		default:
			if tc == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = at(pi)
		if pc == ']' {
			break
		}
	}
	if matched == negated {
		return wmNoMatch, pi
	}
	return wmMatch, pi
}

func inClass(name string, c byte, fold bool) (ok, known bool) {
	switch name {
	case "alnum":
		return isAlnum(c), true
	case "alpha":
		return isAlpha(c), true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 32 || c == 127, true
	case "digit":
		return c >= '0' && c <= '9', true
	case "graph":
		return c > 32 && c < 127, true
	case "lower":
		return c >= 'a' && c <= 'z', true
	case "print":
		return c >= 32 && c < 127, true
	case "punct":
		return c > 32 && c < 127 && !isAlnum(c), true
	case "space":
		return isSpace(c), true
	case "upper":
		return c >= 'A' && c <= 'Z' || fold && c >= 'a' && c <= 'z', true
	case "xdigit":
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
