# kafkaops.listeners — developer entry points. `make test` is what CI runs; `make demo` is the main job.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
COLLECTIONS := $(CURDIR)/$(VENV)/collections
# ansible-test only runs inside .../ansible_collections/<namespace>/<name>: sanity, units and integration run on a
# copy there. The copy lives outside this checkout: inside it, ansible-test would list files with this repository's
# git, which ignores the copy, and find no targets.
BUILD_ROOT := /tmp/kafkaops-listeners-build-$(shell echo "$(CURDIR)" | md5sum | cut -c1-8)/ansible_collections/kafkaops/listeners
SITE_PACKAGES = $(shell $(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
GET_PIP_CACHE := $(HOME)/.ansible/test/cache/get_pip_24_2.py
# the unit tests that need the lab package (its metadata emulator); ansible-test units skips them
LAB_UNIT_TESTS := tests/unit/plugins/module_utils/metadata tests/unit/plugins/modules/test_instance_metadata.py
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS)

.PHONY: help
help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

$(VENV)/.installed: requirements-dev.txt pyproject.toml lab/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	# the tools, and the lab as a package of its own (lab/pyproject.toml)
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps -e . -e lab
	touch $@

.PHONY: venv
venv: $(VENV)/.installed  ## create .venv with the tooling; link the collection as kafkaops.listeners
	mkdir -p $(COLLECTIONS)/ansible_collections/kafkaops
	# each written only when it differs: `make checks` runs two makes at once, and each makes this target (a
	# rewrite under a starting Python could hide the collection from it)
	[ "$$(readlink $(COLLECTIONS)/ansible_collections/kafkaops/listeners)" = "$(CURDIR)" ] \
	  || ln -sfn $(CURDIR) $(COLLECTIONS)/ansible_collections/kafkaops/listeners
	[ "$$(cat $(SITE_PACKAGES)/kafkaops_listeners_collection.pth 2>/dev/null)" = "$(COLLECTIONS)" ] \
	  || echo "$(COLLECTIONS)" > $(SITE_PACKAGES)/kafkaops_listeners_collection.pth
	cmp -s tools/get_pip.py $(GET_PIP_CACHE) || install -D -m 0644 tools/get_pip.py $(GET_PIP_CACHE)

.PHONY: system-deps
system-deps:  ## install the Debian packages the lab and the demo need (root)
	tools/install-system-deps

.PHONY: build-tree
build-tree: venv
	rm -rf $(BUILD_ROOT) && mkdir -p $(BUILD_ROOT)
	# the collection's own content only: the lab, benchmarks and dev tools are not shipped (see build_ignore)
	git ls-files -co --exclude-standard \
	  | grep -vE '^(terraform|lab|tests/terraform|tests/release|tests/docs|extensions|benchmarks|tools|kafka_listeners|audit|docs)/' \
	  | grep -vE '^(setup\.py|MANIFEST\.in)$$' \
	  | tar -cf - --ignore-failed-read -T - 2>/dev/null | tar -xf - -C $(BUILD_ROOT)

.PHONY: lint
lint: venv terraform-bin  ## ansible-lint (production profile), ruff, terraform fmt -check and validate
	$(BIN)/ansible-lint --profile production
	$(BIN)/ruff check .
	tools/terraform-lint

.PHONY: sanity
sanity: build-tree  ## ansible-test sanity with empty ignore files
	cd $(BUILD_ROOT) && $(BIN)/ansible-test sanity --venv --python 3.11 --color no

.PHONY: units
units: build-tree  ## unit tests: ansible-test units, and in .venv what needs the repository (command-line tools, lab)
	# ansible-test runs every unit test, in a venv of its own without the lab package, so the tests that start the
	# lab's metadata emulator skip there: pytest runs those (and the command-line tools' tests) in .venv, where CI
	# makes them fail rather than skip. Running all of tests/unit in both took about 7 minutes more under load.
	$(BIN)/pytest tests/cli $(LAB_UNIT_TESTS) -q
	cd $(BUILD_ROOT) && $(BIN)/ansible-test units --venv --python 3.11 --color no

.PHONY: integration
integration: build-tree  ## ansible-test integration targets (local, in a throw-away venv)
	cd $(BUILD_ROOT) && $(BIN)/ansible-test integration --venv --requirements --python 3.11 --color no

.PHONY: kafka-dist
kafka-dist:  ## Apache Kafka releases of lab/kafka-dist/versions from Maven Central into ~/.cache (once)
	lab/kafka-dist/fetch >/dev/null

.PHONY: lab-tests
lab-tests: venv system-deps kafka-dist  ## the lab's own suites: Kafka stand-in, metadata emulator (root; real kcat and clients)
	# two suites (files) at a time: labs are mostly waiting on processes and the network, and each has its own prefix
	$(BIN)/pytest lab/tests -q -n 2 --dist loadfile --durations=40 --ignore=lab/tests/test_molecule.py

.PHONY: molecule
molecule: venv system-deps  ## `molecule test` of the stand-in's scenarios, each on its own lab (root; the others: lab/README.md)
	$(BIN)/pytest lab/tests/test_molecule.py -q

.PHONY: lab-suites
lab-suites: venv system-deps kafka-dist  ## lab-tests and molecule in one run of two workers (what `make test` runs)
	# one pool: the Molecule scenarios' file runs beside the lab's suites instead of alone after them
	$(BIN)/pytest lab/tests -q -n 2 --dist loadfile --durations=40

.PHONY: audit-test
audit-test: venv  ## the fleet audit on a local SparkSession and on a standalone Spark cluster on loopback
	SPARK_LOCAL_IP=127.0.0.1 $(BIN)/pytest audit/tests -q

.PHONY: docs
docs: venv  ## build the docsite into docs/build (antsibull-docs + Sphinx, warnings are errors)
	tools/build-docs

.PHONY: docs-test
docs-test: venv  ## check every code block of the docsite guides
	$(BIN)/pytest tests/docs -q

.PHONY: terraform-test
terraform-test: venv system-deps terraform-bin  ## Terraform hook: plan, input checks, `terraform apply` on a lab (root)
	$(BIN)/pytest tests/terraform -q

.PHONY: terraform-bin
terraform-bin:  ## a Terraform >= 1.4: `terraform`/`tofu` on PATH, else v1.5.7 built once from the Go module proxy into ~/.cache
	tools/terraform-bin >/dev/null

.PHONY: release-check
release-check: venv system-deps  ## tarball contents, fresh install, ansible-doc of every plugin, site.yml from it on a lab
	$(BIN)/pytest tests/release -q

.PHONY: changelog-lint
changelog-lint: venv  ## antsibull-changelog lint, and galaxy.yml's version against the releases (README, Releases)
	$(BIN)/antsibull-changelog lint
	$(BIN)/pytest tests/release/test_version_rule.py -q

.PHONY: checks
checks: venv  ## the checks that start no lab, two at a time (what `make test` runs first)
	# venv first, here: on a fresh machine the two makes below would both create it
	# ansible-test's three one after another (they share the build tree and its venv), beside the others: each side
	# keeps about one core busy (ansible-test units two for a minute), and they share no file
	$(MAKE) --no-print-directory -j2 --output-sync=target checks-ansible-test checks-other

.PHONY: checks-ansible-test checks-other
checks-ansible-test:
	$(MAKE) --no-print-directory -j1 sanity units integration
checks-other:
	$(MAKE) --no-print-directory -j1 lint changelog-lint docs-test docs audit-test

.PHONY: terraform-and-release
terraform-and-release:  ## terraform-test and release-check at once (a lab each, own prefixes)
	$(MAKE) --no-print-directory -j2 --output-sync=target terraform-test release-check

.PHONY: test
test: system-deps  ## everything CI runs: checks, then lab-suites alone, then terraform-and-release
	# one step after another whatever -j says: the lab suites keep both cores busy and want them to themselves
	$(MAKE) --no-print-directory checks
	$(MAKE) --no-print-directory lab-suites
	$(MAKE) --no-print-directory terraform-and-release

.PHONY: demo
demo: venv system-deps kafka-dist  ## the main job on its embedded default (see README)
	tools/demo

.PHONY: clean
clean:  ## remove build output (keeps .venv)
	rm -rf build tests/output dist $(BUILD_ROOT)
