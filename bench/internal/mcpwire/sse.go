package mcpwire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// readSSE reads a text/event-stream until the event carrying the answer to
// request id want. Notifications on the way are skipped; a server request is
// an error, since the client cannot answer it.
func readSSE(body io.Reader, want string) (envelope, error) {
	lines := bufio.NewScanner(body)
	lines.Buffer(make([]byte, 16<<10), maxLine)
	var data []byte
	for lines.Scan() {
		line := lines.Bytes()
		if len(line) != 0 {
			if value, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if len(data) != 0 {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
			}
			continue // event:, id:, retry: and comments carry nothing the client needs
		}
		if len(data) == 0 {
			continue
		}
		env, err := decodeEnvelope(data)
		if err != nil {
			return env, err
		}
		data = data[:0]
		switch {
		case env.Method != "" && len(env.ID) != 0:
			return env, serverRequestError(env)
		case env.Method != "":
			continue
		case string(env.ID) != want:
			return env, fmt.Errorf("the server's event stream for request id %s carried the answer to id %s", want, env.ID)
		}
		return env, nil
	}
	if err := lines.Err(); err != nil {
		return envelope{}, fmt.Errorf("read the event stream for request id %s: %w", want, err)
	}
	return envelope{}, fmt.Errorf("the server's event stream ended without answering request id %s", want)
}
