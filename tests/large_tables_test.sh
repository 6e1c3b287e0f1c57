#!/usr/bin/env bash
# large-tables: tables and paths the configuration declares large are the evidence of size that source
# code does not show. Findings on them are warnings; the same code without the declaration gives infos.
set -uo pipefail
planlint=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"

mkdir -p "$work/p"
cat > "$work/p/job.py" <<'PY'
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
spark.conf.set("spark.sql.adaptive.enabled", "false")
daily = spark.table("Sales.Orders").groupBy("day").agg(F.sum("amount").alias("amount"))
print(daily.count())
daily.write.mode("overwrite").saveAsTable("sales.daily")

clean = F.udf(lambda s: s.strip().lower(), "string")
events = spark.read.parquet("s3://lake/events/2024/")
events.withColumn("name", clean("name")).write.parquet("s3://lake/clean/")

ranked = spark.table("ref.countries").withColumn("rank", F.row_number().over(Window.orderBy("name")))
ranked.write.parquet("s3://lake/countries/")
lookups = spark.read.option("inferSchema", "true").csv("s3://lake/events/lookups.csv", header=True)
lookups.write.parquet("s3://lake/lookups/")
PY
job=$work/p/job.py

check "no declaration: advice only" 0 "$planlint" --isolated "$job"
contains "recomputed-lineage is an info" out "info: \`daily\` is computed from its source 2 times"
contains "python-row-udf is an info" out "info: \`clean\` is a row-at-a-time Python UDF"
contains "aqe-disabled is an info" out "info: adaptive query execution turned off"
lacks "nothing is declared large" out "declared large"

printf '[tool.planlint]\nlarge-tables = ["sales.orders", "s3://lake/events/*"]\n' > "$work/p/pyproject.toml"
check "declared tables and paths: warnings" 1 "$planlint" "$job"
contains "a lineage over a declared table (names match in any case)" out "warning: \`daily\` is computed from its source 2 times"
contains "the message names what was declared" out "(it reads \`sales.orders\`, declared large)"
contains "AQE off where a shuffle reads a declared table" out "(this file's shuffles read \`sales.orders\`, declared large)"
contains "a UDF over a path the glob matches" out "(it runs on \`s3://lake/events/*\`, declared large)"
contains "schema inference over a path the glob matches" out "warning: \`inferSchema\`"
lacks "a window over a table not declared stays advice" out "warning: window ordered without partitionBy"
contains "that window is still reported" out "info: window ordered without partitionBy"

printf '[tool.planlint]\nlarge-tables = ["ref.countries"]\n' > "$work/p/pyproject.toml"
check "a window over a declared table" 1 "$planlint" "$job"
contains "window warning" out "warning: window ordered without partitionBy: Spark moves every row into one partition (it runs over \`ref.countries\`, declared large)"
lacks "the other findings are infos again" out "warning: \`daily\`"

printf '[tool.planlint]\nlarge-tables = "sales.orders"\n' > "$work/p/pyproject.toml"
check "large-tables must be a list" 2 "$planlint" "$job"
contains "the error names the file and key" err "pyproject.toml:2:"

finish
