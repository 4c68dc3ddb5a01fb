package placement

import "testing"

func TestParseCommandCountFindsTheTotal(t *testing.T) {
	info := "# Stats\r\ntotal_connections_received:12\r\ntotal_commands_processed:98765\r\ninstantaneous_ops_per_sec:3\r\n"
	if n, err := parseCommandCount(info); err != nil || n != 98765 {
		t.Errorf("parseCommandCount = %d, %v; want 98765", n, err)
	}
	for _, bad := range []string{"# Stats\r\n", "total_commands_processed:many\r\n"} {
		if _, err := parseCommandCount(bad); err == nil {
			t.Errorf("parseCommandCount(%q) found a count", bad)
		}
	}
}
