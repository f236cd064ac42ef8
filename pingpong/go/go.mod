module cryptobench/pingpong

go 1.19
