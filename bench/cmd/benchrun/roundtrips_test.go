package main

import "testing"

func TestParseRoundTripsReadsBothCounts(t *testing.T) {
	all, background, requests, err := parseRoundTrips("1234 56 789")
	if err != nil || all != 1234 || background != 56 || requests != 789 {
		t.Fatalf(`parseRoundTrips("1234 56 789") = %d, %d, %d, %v; want 1234, 56, 789`, all, background, requests, err)
	}
	// A server built before the background count was reported, and lines
	// that cannot be counts, are refused rather than misread.
	for _, line := range []string{"1234", "1234 56", "", "12 x 3", "5 6 7 8", "5 9 1", "-1 0 1", "5 1 -1"} {
		if _, _, _, err := parseRoundTrips(line); err == nil {
			t.Errorf("parseRoundTrips(%q) succeeded; want an error", line)
		}
	}
}
