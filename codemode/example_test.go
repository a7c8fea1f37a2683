package codemode_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/mcphttp"
)

// A model asks for the coldest of several cities in one tool call: its
// script lists the cities, calls the weather tool for each, and returns
// only the answer.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "cities", Description: "List the cities we forecast"},
		func(context.Context, *mcp.Context, struct{}) (map[string][]string, error) {
			return map[string][]string{"cities": {"Oslo", "Lima", "Cairo"}}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "temperature", Description: "A city's temperature in °C"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city"`
		}) (map[string]float64, error) {
			return map[string]float64{"temp_c": map[string]float64{"Oslo": -3, "Lima": 19, "Cairo": 31}[in.City]}, nil
		})

	r, err := codemode.New(srv, &codemode.Options{MaxCalls: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := mcphttp.New(srv, nil)
	defer h.Close()
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(r.Middleware(h), nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	res, err := c.CallTool(ctx, codemode.DefaultTool, map[string]any{"script": `
temps = {c: call("temperature", {"city": c})["temp_c"] for c in call("cities")["cities"]}
result = min(temps.items(), key=lambda kv: kv[1])
`}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	res, _ = c.CallTool(ctx, codemode.DefaultTool, map[string]any{"script": "x = 1\ny = x / 0\n"}, nil)
	fmt.Println(res.IsError, strings.SplitN(res.Text(), "\n", 2)[0])
	// Output:
	// ["Oslo",-3]
	// true error at line 2: floating-point division by zero
}
