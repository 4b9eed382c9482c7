module example.com/bindmixed

go 1.26

require (
	github.com/godlpack/godlpack v0.0.0
	gonum.org/v1/gonum v0.17.0
)

