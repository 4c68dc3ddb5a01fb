package console

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
)

// Form asks a person the server's elicitation questions on a terminal.
type Form struct {
	in  *bufio.Reader
	out io.Writer
}

// NewForm returns a Form that reads answers from in and writes questions
// to out.
func NewForm(in io.Reader, out io.Writer) *Form {
	return &Form{in: bufio.NewReader(in), out: out}
}

// errEOF ends a form whose input ended: the elicitation is cancelled.
var errEOF = errors.New("the input ended")

// errDecline ends a one-field form left empty: the elicitation is
// declined.
var errDecline = errors.New("declined")

// Ask asks the question p and returns the person's response: accept with
// the form's content (or, for a URL, once they have visited it), decline,
// or cancel when the input ends. A form of one field (a yes/no question)
// is asked at once, an empty answer declining it; a longer one first asks
// whether to answer at all.
func (f *Form) Ask(p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	fmt.Fprintf(f.out, "\nThe server asks: %s\n", p.Message)
	if p.EffectiveMode() == mcp.ElicitModeURL {
		fmt.Fprintf(f.out, "  Open %s\n", p.URL)
		return f.confirm("  Done? [Y]es, [n]o to decline, [c] to cancel: ")
	}
	if p.RequestedSchema != nil && len(p.RequestedSchema.Properties) == 1 {
		return f.single(p.RequestedSchema.Properties[0])
	}
	res, err := f.confirm("  Answer? [Y]es, [n]o to decline, [c] to cancel: ")
	if err != nil || res.Action != mcp.ElicitAccept || p.RequestedSchema == nil {
		return res, err
	}
	content := mcp.JSONObject{}
	for _, prop := range p.RequestedSchema.Properties {
		required := slices.Contains(p.RequestedSchema.Required, prop.Name)
		v, err := f.field(prop, required, false)
		if errors.Is(err, errEOF) {
			return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			content[prop.Name] = v
		}
	}
	res.Content = content
	return res, nil
}

// single asks the one field of a form, an empty answer (without a default)
// declining and the end of the input cancelling.
func (f *Form) single(prop mcp.ElicitProperty) (*mcp.ElicitResult, error) {
	v, err := f.field(prop, true, true)
	switch {
	case errors.Is(err, errEOF):
		return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	case errors.Is(err, errDecline):
		return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
	case err != nil:
		return nil, err
	}
	return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{prop.Name: v}}, nil
}

// confirm asks whether to answer at all.
func (f *Form) confirm(prompt string) (*mcp.ElicitResult, error) {
	for {
		line, err := f.line(prompt)
		if err != nil {
			return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		}
		switch strings.ToLower(line) {
		case "", "y", "yes":
			return &mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
		case "n", "no":
			return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
		case "c", "cancel":
			return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		}
		fmt.Fprintln(f.out, "  Please type y, n or c.")
	}
}

// field asks for one form field until the answer fits its schema; nil
// means an optional field left empty. With emptyDeclines, an empty answer
// to a field without a default is errDecline.
func (f *Form) field(prop mcp.ElicitProperty, required, emptyDeclines bool) ([]byte, error) {
	s := prop.Schema
	label := s.Title
	if label == "" {
		label = prop.Name
	}
	hint := s.Type
	if vals := s.EnumValues(); vals != nil {
		hint = "one of " + strings.Join(vals, ", ")
		if s.Type == "array" {
			hint = "some of " + strings.Join(vals, ", ") + ", separated by commas"
		}
	} else if s.Type == "boolean" {
		hint = "yes or no"
	}
	if s.Description != "" && s.Description != hint {
		fmt.Fprintf(f.out, "  %s: %s\n", label, s.Description)
	}
	if !required {
		hint += ", optional"
	}
	if len(s.Default) > 0 {
		hint += ", default " + string(s.Default)
	} else if emptyDeclines {
		hint += "; Enter alone declines"
	}
	for {
		line, err := f.line(fmt.Sprintf("  %s (%s): ", label, hint))
		if err != nil {
			return nil, errEOF
		}
		if line == "" {
			switch {
			case len(s.Default) > 0:
				return s.Default, nil
			case emptyDeclines:
				return nil, errDecline
			case !required:
				return nil, nil
			}
			fmt.Fprintln(f.out, "  An answer is required.")
			continue
		}
		v, err := parseField(s, line)
		if err == nil {
			return v, nil
		}
		fmt.Fprintf(f.out, "  %v\n", err)
	}
}

// parseField reads a typed answer as the JSON value the schema asks for.
func parseField(s mcp.PrimitiveSchema, line string) ([]byte, error) {
	vals := s.EnumValues()
	switch {
	case s.Type == "array":
		var picked []string
		for _, v := range strings.Split(line, ",") {
			v = strings.TrimSpace(v)
			if vals != nil && !slices.Contains(vals, v) {
				return nil, fmt.Errorf("%q is not one of %s", v, strings.Join(vals, ", "))
			}
			picked = append(picked, v)
		}
		return json.Marshal(picked)
	case vals != nil:
		if !slices.Contains(vals, line) {
			return nil, fmt.Errorf("%q is not one of %s", line, strings.Join(vals, ", "))
		}
		return json.Marshal(line)
	case s.Type == "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return []byte("true"), nil
		case "n", "no", "false":
			return []byte("false"), nil
		}
		return nil, fmt.Errorf("please answer yes or no")
	case s.Type == "integer":
		if _, err := strconv.ParseInt(line, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not a whole number", line)
		}
		return []byte(line), nil
	case s.Type == "number":
		n, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", line)
		}
		return json.Marshal(n)
	}
	return json.Marshal(line)
}

// line writes prompt and reads one line, trimmed.
func (f *Form) line(prompt string) (string, error) {
	fmt.Fprint(f.out, prompt)
	s, err := f.in.ReadString('\n')
	if err != nil && (s == "" || !errors.Is(err, io.EOF)) {
		fmt.Fprintln(f.out)
		return "", err
	}
	return strings.TrimSpace(s), nil
}
