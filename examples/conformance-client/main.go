// Command conformance-client is the client the official MCP conformance
// suite's client scenarios drive (make conformance-client): the suite
// starts a scenario's server, runs this program with the server's URL as
// its last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO,
// and checks what it sent. Each scenario does what a real client would
// with package client.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client URL (MCP_CONFORMANCE_SCENARIO names the scenario)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, scenario, url); err != nil {
		fmt.Fprintf(os.Stderr, "conformance-client: %s: %v\n", scenario, err)
		os.Exit(1)
	}
}

// scenarios are what the client does for each scenario it supports.
var scenarios = map[string]func(ctx context.Context, c *client.Client) error{
	"initialize": func(ctx context.Context, c *client.Client) error {
		_, err := c.ListTools(ctx)
		return err
	},
	"tools_call": func(ctx context.Context, c *client.Client) error {
		res, err := c.CallTool(ctx, "add_numbers", map[string]float64{"a": 5, "b": 3}, nil)
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
		return nil
	},
	"elicitation-sep1034-client-defaults": func(ctx context.Context, c *client.Client) error {
		res, err := c.CallTool(ctx, "test_client_elicitation_defaults", nil, nil)
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
		return nil
	},
	"sse-retry": func(ctx context.Context, c *client.Client) error {
		res, err := c.CallTool(ctx, "test_reconnection", nil, nil)
		if err != nil {
			return err
		}
		fmt.Println(res.Text())
		return nil
	},
	"json-schema-2020-12-preservation": func(ctx context.Context, c *client.Client) error {
		tools, err := c.ListTools(ctx)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if t.Name == "json_schema_2020_12_tool" {
				_, err := c.CallTool(ctx, "json_schema_echo", map[string]any{"schema": t.InputSchema}, nil)
				return err
			}
		}
		return errors.New("the server lists no json_schema_2020_12_tool")
	},
}

func run(ctx context.Context, scenario, url string) error {
	do, ok := scenarios[scenario]
	if !ok {
		return fmt.Errorf("scenario %q is not supported", scenario)
	}
	opts := &client.Options{
		Info:   mcp.Implementation{Name: "mcpchain-conformance-client", Version: "1.0.0"},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
		// Accept every elicitation with the defaults of its schema: what
		// a form shows before the user changes anything.
		Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: client.ElicitDefaults(p)}, nil
		},
	}
	c, err := client.Connect(ctx, client.HTTP(url, nil), opts)
	if err != nil {
		return err
	}
	defer c.Close()
	return do(ctx, c)
}
