module example.com/vecbench

go 1.26

require github.com/godlpack/godlpack v0.0.0
