module github.com/plyhq/ply

go 1.26.8

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/google/uuid v1.6.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.uber.org/goleak v1.3.0
	gopkg.in/yaml.v3 v3.0.1
	mvdan.cc/sh/v3 v3.14.1
)

require golang.org/x/text v0.14.0
