# flink_agents_memory — everything a user or CI runs goes through these targets.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
JAR := java_udf/target/flink-agents-memory-java-0.1.0.jar
PKG_JAR := flink_agents_memory/jars/flink-agents-memory-java-0.1.0.jar
PYTEST_ARGS ?=
CHROMA_VENV := .venv-chroma
CHROMA := $(CHROMA_VENV)/bin/chroma
CHROMADB_SPEC := chromadb>=1.5,<2

.PHONY: install-browser inspect
.PHONY: install install-models install-knowledge demo-memory jar test test-python test-java lint demo bench bench-quick bench-deps bench-peers clean \
        cluster-up cluster-down cluster-status submit

## install: create .venv, install the package (editable, test extras) and build the jar
install: $(PY) jar $(CHROMA)

$(PY): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $(PY)

## install-models: the optional local embedder (MiniLM: sentence-transformers + torch, several GB)
install-models: $(PY)
	$(PY) -m pip install -e '.[test,models]'

## install-knowledge: the Chroma server (chromadb, the `knowledge` extra) in its own .venv-chroma
## (its pins conflict with PyFlink's; the job only speaks HTTP to it). ~35 s, ~520 MB.
install-knowledge: $(CHROMA)

$(CHROMA):
	$(PYTHON) -m venv $(CHROMA_VENV)
	$(CHROMA_VENV)/bin/python -m pip install -q --upgrade pip
	$(CHROMA_VENV)/bin/python -m pip install -q '$(CHROMADB_SPEC)'
	touch $(CHROMA)

## install-browser: Debian's chromium + chromium-driver for the inspector's browser test
## (root, as in CI; selenium drives the system driver, nothing is downloaded at test time)
install-browser:
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; }

## inspect: serve the memory inspector for a savepoint (make inspect SAVEPOINT=path ARGS=...)
inspect:
	$(VENV)/bin/flink-agents-memory inspect $(SAVEPOINT) $(ARGS)

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

## demo-memory: AgentWithMemory (examples/agent_with_memory.py) with a local Chroma server:
## starts it on a free loopback port (data in var/chroma), ingests examples/data/, runs the
## job on a MiniCluster, stops the server
demo-memory: $(CHROMA)
	CHROMA_BIN=$(CHROMA) $(VENV)/bin/flink-agents-memory knowledge serve --path var/chroma -- \
	  sh -c '$(VENV)/bin/flink-agents-memory knowledge ingest --url "$$KNOWLEDGE_URL" \
	           --source flink-docs examples/data && \
	         $(PY) examples/agent_with_memory.py --url "$$KNOWLEDGE_URL"'

## bench: run the benchmarks and write docs/benchmarks.md (docs/benchmarks/*.json, docs/img/*.png)
## bench-quick: the CI smoke (< 5 min, small sizes; writes docs/benchmarks/quick/)
## Both fail when a peer (flink-agents, mem0) cannot be run. Peers live in .bench/venvs/, never
## in .venv; .venv only gets the `bench` extra (matplotlib).
BENCH_VENVS := .bench/venvs
FA_PY := $(BENCH_VENVS)/flink-agents/bin/python
MEM0_PY := $(BENCH_VENVS)/mem0/bin/python
MEM0_SPEC := mem0ai>=2.2,<3

bench: bench-deps
	$(PY) -m benchmarks.run

bench-quick: bench-deps
	$(PY) -m benchmarks.run --quick

bench-deps: $(PY) bench-peers
	$(PY) -m pip install -q -e '.[bench]'

bench-peers: $(FA_PY) $(MEM0_PY)

# flink-agents from PyPI: its sdist downloads the framework's jars from Maven Central while it
# builds; where they cannot be had this target fails, and with it the benchmark (a missing
# comparison must never look like a win). See docs/benchmarks.md.
$(FA_PY):
	$(PYTHON) -m venv $(BENCH_VENVS)/flink-agents
	$(FA_PY) -m pip install -q --upgrade pip
	$(FA_PY) -m pip install -q 'flink-agents==0.3.1'
	touch $(FA_PY)

$(MEM0_PY):
	$(PYTHON) -m venv $(BENCH_VENVS)/mem0
	$(MEM0_PY) -m pip install -q --upgrade pip
	$(MEM0_PY) -m pip install -q '$(MEM0_SPEC)'
	touch $(MEM0_PY)

clean:
	rm -rf java_udf/target $(PKG_JAR) var .pytest_cache

## cluster-up: standalone cluster from the wheel (JobManager + 2 TaskManagers), state in var/flink
REST_PORT ?= 8081
CLUSTER_DIR ?= var/flink
JOB ?= examples/demo.py
CLUSTER := $(PY) -m flink_agents_memory.cluster

cluster-up:
	$(CLUSTER) up --dir $(CLUSTER_DIR) --rest-port $(REST_PORT)

## cluster-down: stop exactly the processes cluster-up started (PIDs in var/flink/cluster.json)
cluster-down:
	$(CLUSTER) down --dir $(CLUSTER_DIR)

## cluster-status: recorded processes, /overview and jobs
cluster-status:
	$(CLUSTER) status --dir $(CLUSTER_DIR)

## submit: flink run -py $(JOB) $(JOB_ARGS) on the running cluster (make submit JOB=examples/demo.py)
submit:
	$(CLUSTER) submit --dir $(CLUSTER_DIR) $(JOB) $(JOB_ARGS)
