package cli

import "strings"

// maxLine bounds the descriptions shown in tables.
const maxLine = 80

// oneLine shortens s to its first line, at most maxLine characters.
func oneLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > maxLine {
		return string(r[:maxLine-1]) + "…"
	}
	if cut {
		return s + " …"
	}
	return s
}
