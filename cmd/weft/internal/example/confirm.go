package example

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"log/slog"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// ConfirmIn are the arguments of confirm.
type ConfirmIn struct {
	Question string `json:"question" jsonschema:"the yes/no question to ask the user"`
}

// confirmForm is the form confirm asks the user to fill: one yes/no field.
var confirmForm = &mcp.ElicitSchema{
	Type:       "object",
	Properties: mcp.ElicitProperties{{Name: "answer", Schema: mcp.PrimitiveSchema{Type: "boolean", Title: "Answer", Description: "yes or no"}}},
	Required:   []string{"answer"},
}

// addConfirm registers confirm, which asks the user a yes/no question
// through the client (elicitation) and returns the answer, telling logger
// when it asks and what it was answered.
func addConfirm(s *server.Server, logger *slog.Logger) {
	server.AddTool(s, &mcp.Tool{
		Name:        "confirm",
		Title:       "Confirm",
		Description: "Asks the user a yes/no question through the client and returns the answer.",
	}, func(ctx context.Context, req *server.Request, in ConfirmIn) (string, error) {
		return confirm(ctx, req, in, logger)
	}, asTask(), server.RequireClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
}

func confirm(ctx context.Context, req *server.Request, in ConfirmIn, logger *slog.Logger) (string, error) {
	if in.Question == "" {
		return "", fmt.Errorf("question is empty; give the yes/no question to ask")
	}
	logger.Info("confirm asked", "question", in.Question)
	res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: in.Question, RequestedSchema: confirmForm})
	if err != nil {
		return "", err
	}
	if res.Action != mcp.ElicitAccept {
		logger.Info("confirm answered", "question", in.Question, "action", string(res.Action))
		if res.Action == mcp.ElicitDecline {
			return fmt.Sprintf("the user declined to answer %q", in.Question), nil
		}
		return fmt.Sprintf("the user dismissed %q without answering", in.Question), nil
	}
	var yes bool
	if err := stdjson.Unmarshal(res.Content["answer"], &yes); err != nil {
		return "", fmt.Errorf("the client's answer is not a boolean: %s", res.Content["answer"])
	}
	logger.Info("confirm answered", "question", in.Question, "action", string(res.Action), "answer", yes)
	if yes {
		return fmt.Sprintf("the user answered yes to %q", in.Question), nil
	}
	return fmt.Sprintf("the user answered no to %q", in.Question), nil
}
