// hookd-dashboard-check: checks Grafana dashboard JSON files against Grafana's published dashboard types
// (github.com/grafana/grafana-foundation-sdk, generated from Grafana's own schema): a strict decode (an
// unknown or mistyped field anywhere, panel options and Prometheus queries included, is an error), then
// the SDK's Validate. The import wrapper Grafana adds to an exported dashboard (`__inputs`, `__requires`,
// which Grafana consumes at import) is checked for shape and set aside first.
// Usage: hookd-dashboard-check FILE...; prints "ok FILE" or the errors, exits 1 on any error.
// ./dev builds it once into .cache/ (tests/unit/fleet/test_dashboard_schema.py runs it).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// One entry of an exported dashboard's __inputs, as Grafana writes it (its import form asks for each).
type importInput struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Description string `json:"description"`
	Type        string `json:"type"` // "datasource" or "constant"
	PluginID    string `json:"pluginId"`
	PluginName  string `json:"pluginName"`
	Value       string `json:"value"`
}

func check(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if inputs, ok := fields["__inputs"]; ok {
		var parsed []importInput
		decoder := json.NewDecoder(bytes.NewReader(inputs))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&parsed); err != nil {
			return fmt.Errorf("__inputs: %w", err)
		}
		delete(fields, "__inputs")
	}
	delete(fields, "__requires")
	body, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	var board dashboard.Dashboard
	if err := real(board.UnmarshalJSONStrict(body)); err != nil {
		return err
	}
	return real(board.Validate())
}

// real: the SDK returns its error list typed even when it is empty (a non-nil interface holding nil).
func real(err error) error {
	var list cog.BuildErrors
	if errors.As(err, &list) && len(list) == 0 {
		return nil
	}
	return err
}

func main() {
	plugins.RegisterDefaultPlugins() // panel options and data queries decode into their own types
	failed := false
	for _, path := range os.Args[1:] {
		if err := check(path); err != nil {
			fmt.Printf("invalid %s: %v\n", path, err)
			failed = true
			continue
		}
		fmt.Printf("ok %s\n", path)
	}
	if failed || len(os.Args) < 2 {
		os.Exit(1)
	}
}
