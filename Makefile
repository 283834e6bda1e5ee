# flink_agents_memory — everything a user or CI runs goes through these targets.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
JAR := java_udf/target/flink-agents-memory-java-0.1.0.jar
PKG_JAR := flink_agents_memory/jars/flink-agents-memory-java-0.1.0.jar
PYTEST_ARGS ?=

.PHONY: install jar test test-python test-java lint demo bench bench-quick clean \
        cluster-up cluster-down submit

## install: create .venv, install the package (editable, test extras) and build the jar
install: $(PY) jar

$(PY): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $(PY)

## jar: build the java_udf operator jar (Maven, Java 17) and put it into the package
jar:
	cd java_udf && mvn -q -B -DskipTests package
	mkdir -p flink_agents_memory/jars
	cp $(JAR) $(PKG_JAR)

## test: Java unit tests, then the whole Python suite (unit, MiniCluster, cluster)
test: test-java test-python

test-java:
	cd java_udf && mvn -q -B test

test-python: lint
	$(PY) -m pytest $(PYTEST_ARGS)

lint:
	$(PY) -m ruff check flink_agents_memory tests examples benchmarks

## demo: run the example agent job on a local MiniCluster and print its outputs
demo:
	$(PY) examples/demo.py

## bench: run the benchmarks and write docs/benchmarks.md
bench:
	$(PY) -m benchmarks.run

bench-quick:
	$(PY) -m benchmarks.run --quick

clean:
	rm -rf java_udf/target $(PKG_JAR) var .pytest_cache
