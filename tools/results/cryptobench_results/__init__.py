"""cryptobench's results tools: read raw Google Benchmark JSON and derive
JMH JSON, comparisons, library selection and the HTML report from it.
Standard library only; run with Debian's /usr/bin/python3."""
