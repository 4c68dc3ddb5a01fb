package mcpwire_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// fakeStdio serves the handshake on a pair of pipes and hands every
// tools/call to answer, which returns the lines to write back, or a nil
// slice to hang up (close the output, as an exiting server does). It ends
// when the client's side of the input pipe is closed.
func fakeStdio(t *testing.T, answer func(m incoming) []string) (fromServer io.Reader, toServer io.Writer) {
	clientReads, serverWrites := io.Pipe()
	serverReads, clientWrites := io.Pipe()
	t.Cleanup(func() {
		clientWrites.Close()
		clientReads.Close()
	})
	go func() {
		defer serverWrites.Close()
		lines := bufio.NewScanner(serverReads)
		for lines.Scan() {
			var m incoming
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Errorf("client sent malformed JSON %q: %v", lines.Bytes(), err)
				return
			}
			var out []string
			switch {
			case m.Method == "initialize":
				out = []string{initializeAnswer(m.ID, mcpwire.ProtocolVersion)}
			case len(m.ID) == 0:
				continue
			default:
				if out = answer(m); out == nil {
					return
				}
			}
			for _, line := range out {
				if _, err := io.WriteString(serverWrites, line+"\n"); err != nil {
					return
				}
			}
		}
	}()
	return clientReads, clientWrites
}

func TestStdioMatchesAnswersArrivingOutOfOrder(t *testing.T) {
	// The fake holds every call until it has 8, then answers them in reverse.
	const calls = 8
	var held []incoming
	from, to := fakeStdio(t, func(m incoming) []string {
		held = append(held, m)
		if len(held) < calls {
			return []string{}
		}
		var out []string
		for i := len(held) - 1; i >= 0; i-- {
			out = append(out, echoAnswer(held[i].ID, held[i].Params.Arguments.Text))
		}
		return out
	})
	s, err := mcpwire.NewStdio(t.Context(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			if err := s.Echo(t.Context(), "call-"+strconv.Itoa(i)); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		})
	}
	wg.Wait()
}

func TestStdioStopsOnProtocolErrors(t *testing.T) {
	for name, answer := range map[string]func(m incoming) []string{
		"unknown id": func(m incoming) []string {
			return []string{echoAnswer(json.RawMessage("12345"), m.Params.Arguments.Text)}
		},
		"server request": func(incoming) []string {
			return []string{`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`}
		},
		"not JSON": func(incoming) []string { return []string{"hello"} },
		"no jsonrpc member": func(m incoming) []string {
			return []string{fmt.Sprintf(`{"id":%s,"result":{}}`, m.ID)}
		},
		"wrong text": func(m incoming) []string {
			return []string{echoAnswer(m.ID, strings.ToUpper(m.Params.Arguments.Text))}
		},
		"server exits": func(incoming) []string { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			from, to := fakeStdio(t, answer)
			s, err := mcpwire.NewStdio(t.Context(), from, to)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Echo(t.Context(), "hello"); err == nil {
				t.Fatal("Echo succeeded against a misbehaving server")
			} else {
				t.Log(err)
			}
		})
	}
}
