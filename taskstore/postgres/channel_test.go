package postgres

import (
	"strings"
	"testing"
)

func TestBusChannelFitsAnIdentifier(t *testing.T) {
	long := strings.Repeat("s", 63)
	for _, schema := range []string{"", "app", long, long + "x"} {
		if c := busChannel(schema); len(c) > 63 || !strings.HasPrefix(c, "weft_tasks") {
			t.Errorf("busChannel(%q) = %q", schema, c)
		}
	}
	if busChannel(long) == busChannel(long+"x") {
		t.Error("two long schemas share a channel")
	}
}
