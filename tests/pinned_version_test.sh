#!/usr/bin/env bash
# The PySpark version a project pins is the target version when neither the command line nor the
# configuration names one: a project pinning pyspark==3.1.2 gets count-for-emptiness's head(1) fix,
# one pinning 3.5 gets isEmpty(); the explicit option wins; the results cache follows the pin.
set -uo pipefail
planlint=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"
cd "$work"

job='from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
new_rows = spark.table("staging.events").filter("ingest_date = current_date()")
if new_rows.count() == 0:
    print("nothing to load")
'
project() {  # project NAME PIN_FILE PIN_TEXT: a repository with one job under jobs/nightly/
  mkdir -p "$1/.git" "$1/jobs/nightly"
  printf '%s' "$job" > "$1/jobs/nightly/load.py"
  printf '%s\n' "$3" > "$1/$2"
}
project old requirements.txt 'pyspark==3.1.2'
project legacy requirements.txt 'pyspark==2.4.8'
project new pyproject.toml '[project]
name = "etl"
dependencies = ["pyspark>=3.5,<4"]'
project conda environment.yml 'dependencies:
  - python=3.8
  - pyspark=3.1'
project poetry pyproject.toml '[tool.poetry.dependencies]
pyspark = "^3.2"'
project bundle databricks.yml 'resources:
  jobs:
    etl:
      job_clusters:
        - new_cluster:
            spark_version: 13.3.x-scala2.12'
project oldbundle databricks.yml 'variables:
  runtime:
    default: 10.4.x-scala2.12'
project connect setup.py 'setup(name="etl", install_requires=["databricks-connect==10.4.*"])'

check "pyspark==3.1.2: head(1)" 1 "$planlint" --no-cache --select count-for-emptiness --diff old
contains "pyspark==3.1.2: head(1)" out '+if len(new_rows.head(1)) == 0:'
check "pyspark>=3.5: isEmpty()" 1 "$planlint" --no-cache --select count-for-emptiness --diff new
contains "pyspark>=3.5: isEmpty()" out '+if new_rows.isEmpty():'
for p in conda poetry oldbundle connect; do
  check "$p pins before 3.3: head(1)" 1 "$planlint" --no-cache --select count-for-emptiness --diff $p
  contains "$p pins before 3.3: head(1)" out '+if len(new_rows.head(1)) == 0:'
done
check "Databricks runtime 13.3 (Spark 3.4): isEmpty()" 1 "$planlint" --no-cache --select count-for-emptiness --diff bundle
contains "Databricks runtime 13.3 (Spark 3.4): isEmpty()" out '+if new_rows.isEmpty():'

# --fix writes it; one run over several projects gives each its own.
cp -r old fixed-old && cp -r new fixed-new
check "--fix over two projects" 0 "$planlint" --no-cache --select count-for-emptiness --fix fixed-old fixed-new
grep -q 'if len(new_rows.head(1)) == 0:' fixed-old/jobs/nightly/load.py && grep -q 'if new_rows.isEmpty():' fixed-new/jobs/nightly/load.py \
  && echo "ok   --fix: each project its own version" || { echo "FAIL --fix per project"; fails=$((fails+1)); }

# A pin of 3.1 is a target of 3.1 for every rule: AQE is off by default there.
check "pin 3.1: AQE default advice" 0 "$planlint" --no-cache --select aqe-disabled old
contains "pin 3.1: AQE default advice, an info" out "info: SparkSession built for Spark 3.1.2, where AQE is off by default"
check "pin 3.5: no AQE default advice" 0 "$planlint" --no-cache --select aqe-disabled new
check "pin 2.4: no AQE to turn on" 0 "$planlint" --no-cache --select aqe-disabled legacy
lacks "pin 2.4: no AQE default advice" out "AQE is off by default"

# The explicit option wins: the command line, then the configuration; --isolated reads no project file.
check "--target-spark-version wins" 1 "$planlint" --no-cache --select count-for-emptiness --diff --target-spark-version 3.5 old
contains "--target-spark-version wins" out '+if new_rows.isEmpty():'
printf 'target-spark-version = "3.5"\n' > old/planlint.toml
check "configured target-spark-version wins" 1 "$planlint" --no-cache --select count-for-emptiness --diff old
contains "configured target-spark-version wins" out '+if new_rows.isEmpty():'
rm old/planlint.toml
check "--isolated: no pin" 1 "$planlint" --no-cache --isolated --select count-for-emptiness --diff old
contains "--isolated: no pin" out '+if new_rows.isEmpty():'

# The search stops at the configuration's folder and at the repository's root.
printf '[tool.planlint]\nselect = ["count-for-emptiness"]\n' > old/jobs/pyproject.toml
check "a pin above the configuration's folder is not read" 1 "$planlint" --no-cache --diff old
contains "a pin above the configuration's folder is not read" out '+if new_rows.isEmpty():'
rm old/jobs/pyproject.toml
mkdir -p outer/repo/jobs && printf 'pyspark==3.1.2\n' > outer/requirements.txt && mkdir outer/repo/.git
printf '%s' "$job" > outer/repo/jobs/load.py
check "a pin above the repository is not read" 1 "$planlint" --no-cache --select count-for-emptiness --diff outer/repo
contains "a pin above the repository is not read" out '+if new_rows.isEmpty():'
# Only a pin that names pyspark counts.
project stubs requirements.txt 'pyspark-stubs==3.0.0'
check "pyspark-stubs is not a pin" 1 "$planlint" --no-cache --select count-for-emptiness --diff stubs
contains "pyspark-stubs is not a pin" out '+if new_rows.isEmpty():'

# The results cache: the target is part of each entry's key, so a changed pin is not served stale.
export PLANLINT_CACHE_STATS=1
check "cached run, pin 3.1.2" 1 "$planlint" --cache-dir cache --fail-on info --select count-for-emptiness old/jobs/nightly/load.py
contains "cached run, pin 3.1.2" out 'len(new_rows.head(1)) == 0'
check "cached run again: a hit" 1 "$planlint" --cache-dir cache --fail-on info --select count-for-emptiness old/jobs/nightly/load.py
contains "cached run again: a hit" err '1 hits, 0 misses'
printf 'pyspark==3.5.0\n' > old/requirements.txt
check "pin changed to 3.5.0: a miss, isEmpty()" 1 "$planlint" --cache-dir cache --fail-on info --select count-for-emptiness \
  old/jobs/nightly/load.py
contains "pin changed to 3.5.0: a miss, isEmpty()" err '0 hits, 1 misses'
contains "pin changed to 3.5.0: a miss, isEmpty()" out 'new_rows.isEmpty()'
unset PLANLINT_CACHE_STATS

# A Databricks Asset Bundle project (databricks.yml at its root, with or without a pin) runs on a
# Databricks runtime, where Arrow is on: toPandas() is not a topandas-without-arrow finding there.
topandas='from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
pdf = spark.table("sales.orders").join(spark.table("sales.customers"), "customer_id").toPandas()
print(len(pdf))
'
mkdir -p dbx/.git dbx/src/jobs plain/.git plain/src/jobs
printf 'bundle:\n  name: sales\n' > dbx/databricks.yml
printf '%s' "$topandas" > dbx/src/jobs/export.py
printf '%s' "$topandas" > plain/src/jobs/export.py
check "no bundle: toPandas of a join without Arrow" 0 "$planlint" --select topandas-without-arrow plain/src/jobs/export.py
contains "reported" out "[topandas-without-arrow]"
check "a bundle above the file: Databricks, Arrow on" 0 "$planlint" --select topandas-without-arrow dbx/src/jobs/export.py
lacks "not reported in a bundle project" out "[topandas-without-arrow]"
check "--isolated reads no project files" 0 "$planlint" --isolated --select topandas-without-arrow dbx/src/jobs/export.py
contains "reported when isolated" out "[topandas-without-arrow]"

# A repository that holds Databricks notebooks (a .py starting "# Databricks notebook source",
# anywhere in it outside hidden folders) runs its code on Databricks too; one whose only such file
# sits in a hidden or installed-package folder does not.
mkdir -p repo/.git repo/notebooks repo/src/jobs other/.git other/.venv/lib other/src/jobs
printf '# Databricks notebook source\nprint(1)\n' > repo/notebooks/report.py
printf '# Databricks notebook source\nprint(1)\n' > other/.venv/lib/vendored.py
printf '%s' "$topandas" > repo/src/jobs/export.py
printf '%s' "$topandas" > other/src/jobs/export.py
check "a repository holding Databricks notebooks: Arrow on" 0 "$planlint" --select topandas-without-arrow repo/src/jobs/export.py
lacks "not reported in a Databricks repository" out "[topandas-without-arrow]"
check "a notebook only in a hidden folder does not count" 0 "$planlint" --select topandas-without-arrow other/src/jobs/export.py
contains "reported outside a Databricks repository" out "[topandas-without-arrow]"

# In parallel, the same report.
"$planlint" --no-cache -j 1 --select count-for-emptiness . > serial.out 2>&1
"$planlint" --no-cache -j 3 --select count-for-emptiness . > parallel.out 2>&1
cmp -s serial.out parallel.out && echo "ok   -j 3 same report" || { echo "FAIL -j 3 differs"; diff serial.out parallel.out | head; fails=$((fails+1)); }
finish
