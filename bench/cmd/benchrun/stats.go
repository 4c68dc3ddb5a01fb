package main

import (
	"fmt"
	"slices"
)

// summary is a figure over the rounds: its least, middle and greatest value.
type summary struct {
	Min, Median, Max float64
	// N is how many rounds it is over; 0 when there were none.
	N int
}

// summarize returns the summary of xs.
func summarize(xs []float64) summary {
	if len(xs) == 0 {
		return summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return summary{Min: s[0], Median: median(s), Max: s[len(s)-1], N: len(s)}
}

// median returns the middle of xs (the mean of the middle two for an even
// count), or 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

// format prints s with f as "median (min–max)", or the median alone over one
// round, or "–" over none.
func (s summary) format(f func(float64) string) string {
	switch {
	case s.N == 0:
		return "–"
	case s.N == 1 || s.Min == s.Max:
		return f(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", f(s.Median), f(s.Min), f(s.Max))
}
