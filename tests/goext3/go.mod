module example.com/goext3

go 1.26

require github.com/godlpack/godlpack v0.0.0
