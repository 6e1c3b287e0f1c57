#!/usr/bin/env python3
"""Writes a generated, realistic PySpark corpus for bench/run: jobs (.py), Jupyter notebooks (.ipynb)
and Databricks source notebooks (.py), with the chains, UDFs, joins, loops, settings and driver code
real jobs have. Deterministic for a seed, so CI and a laptop measure the same files.

usage: gen_corpus.py OUT_DIR [--files N] [--seed S] [--scale K]
--scale K repeats each file's body K times (for the 10x / 100x size rows).
"""
import argparse
import json
import pathlib
import random

TABLES = ["orders", "customers", "events", "sessions", "products", "payments", "stores", "clicks", "inventory"]
COLS = ["id", "customer_id", "store_id", "amount", "ts", "day", "country", "status", "price", "qty", "category"]


def ident(r, prefix):
    return f"{prefix}_{r.choice(['daily', 'raw', 'clean', 'agg', 'joined', 'final', 'tmp', 'base'])}{r.randint(0, 99)}"


def chain(r, src):
    parts = [src]
    for _ in range(r.randint(1, 6)):
        c = r.choice(COLS)
        parts.append(r.choice([
            f'.filter(F.col("{c}") > {r.randint(0, 100)})',
            f'.select("{c}", "{r.choice(COLS)}", "{r.choice(COLS)}")',
            f'.withColumn("{c}_x", F.col("{c}") * {r.randint(2, 9)})',
            f'.withColumnRenamed("{c}", "{c}_renamed")',
            f'.groupBy("{c}").agg(F.sum("amount").alias("total"), F.count("*").alias("n"))',
            f'.join(spark.table("{r.choice(TABLES)}"), "{c}", "left")',
            f'.dropDuplicates(["{c}"])',
            f'.orderBy(F.col("{c}").desc())',
            f'.where("{c} IS NOT NULL")',
            f'.repartition({r.choice([8, 64, 200])}, "{c}")',
        ]))
    return "".join(parts)


def block(r, n):
    """One job-like block: reads, transformations, a UDF, a loop, a write, driver code."""
    out = []
    t = r.choice(TABLES)
    a = ident(r, t)
    kind = r.random()
    if kind < 0.3:
        out.append(f'{a} = spark.read.option("header", True).csv("s3://lake/{t}/{n}/")')
    elif kind < 0.6:
        out.append(f'{a} = spark.read.parquet("s3://lake/{t}/")')
    else:
        out.append(f'{a} = spark.table("{t}")')
    b = ident(r, t)
    out.append(f"{b} = ({chain(r, a)})")
    if r.random() < 0.3:
        fn = f"score_{n}"
        out += ["", "", "@F.udf(returnType=DoubleType())", f"def {fn}(value):",
                "    if value is None:", "        return 0.0", "    return float(value) * 1.1", "",
                f'{b} = {b}.withColumn("score", {fn}(F.col("amount")))']
    if r.random() < 0.25:
        out += [f"for c in {r.sample(COLS, 3)}:", f'    {b} = {b}.withColumn(c + "_norm", F.col(c) / 100)']
    if r.random() < 0.3:
        out += [f'print(f"{{{b}.count()}} rows")']
    w = r.random()
    if w < 0.4:
        out.append(f'{b}.write.mode("overwrite").partitionBy("day").parquet("s3://out/{t}/{n}/")')
    elif w < 0.6:
        out.append(f'{b}.coalesce(1).write.mode("overwrite").csv("s3://out/report_{n}.csv")')
    elif w < 0.8:
        out.append(f"rows = {b}.limit(100).collect()")
        out.append("for row in rows:")
        out.append('    print(row["id"], row.asDict())')
    else:
        out.append(f'pdf = {b}.groupBy("country").count().toPandas()')
        out.append('pdf = pdf.sort_values("count", ascending=False)')
    if r.random() < 0.2:
        out.append(f'spark.conf.set("spark.sql.shuffle.partitions", "{r.choice([50, 200, 400])}")')
    return out


HEADER = [
    "from pyspark.sql import SparkSession, DataFrame, Window",
    "from pyspark.sql import functions as F",
    "from pyspark.sql.types import DoubleType, StringType, StructType, StructField",
    "import pandas as pd",
    "",
]


def helper(r, n):
    return [
        "",
        "",
        f"def load_{n}(spark: SparkSession, path: str) -> DataFrame:",
        f'    """Reads the {r.choice(TABLES)} extract and keeps the valid rows."""',
        '    df = spark.read.parquet(path).where("status = \'ok\'")',
        f'    return df.withColumn("loaded_at", F.current_timestamp())',
        "",
        "",
        f"class Report{n}:",
        "    def __init__(self, spark):",
        "        self.spark = spark",
        "",
        "    def run(self, day):",
        f'        df = self.spark.table("{r.choice(TABLES)}").filter(F.col("day") == day)',
        '        w = Window.partitionBy("store_id").orderBy(F.col("amount").desc())',
        '        return df.withColumn("rank", F.row_number().over(w)).filter("rank <= 10")',
    ]


def job(r, n, scale):
    lines = list(HEADER)
    lines += ['spark = SparkSession.builder.appName("job").config("spark.sql.adaptive.enabled", "true").getOrCreate()', ""]
    for k in range(scale):
        for i in range(r.randint(3, 12)):
            lines += block(r, f"{n}_{k}_{i}") + [""]
        lines += helper(r, f"{n}_{k}")
    return "\n".join(lines) + "\n"


def notebook(r, n, scale):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"# Analysis {n}\n", "Daily numbers.\n"]}]
    src = HEADER + ["spark = SparkSession.builder.getOrCreate()"]
    cells.append({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
                  "source": [l + "\n" for l in src]})
    for k in range(scale):
        for i in range(r.randint(4, 14)):
            body = block(r, f"{n}_{k}_{i}")
            if r.random() < 0.2:
                body = ["%%time"] + body
            cells.append({"cell_type": "code", "execution_count": i + 2, "metadata": {},
                          "outputs": [{"name": "stdout", "output_type": "stream", "text": ["42 rows\n"]}],
                          "source": [l + "\n" for l in body[:-1]] + [body[-1]]})
            if r.random() < 0.3:
                cells.append({"cell_type": "markdown", "metadata": {}, "source": ["Next step.\n"]})
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1) + "\n"


def databricks(r, n, scale):
    out = ["# Databricks notebook source"] + HEADER
    for k in range(scale):
        for i in range(r.randint(4, 12)):
            out += ["# COMMAND ----------", ""] + block(r, f"{n}_{k}_{i}") + [""]
            if r.random() < 0.3:
                out += ["# COMMAND ----------", "", "# MAGIC %sql", f"# MAGIC SELECT count(*) FROM {r.choice(TABLES)}", ""]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=int, default=1)
    a = ap.parse_args()
    r = random.Random(a.seed)
    out = pathlib.Path(a.out)
    for n in range(a.files):
        d = out / f"team{n % 17}" / f"pipeline{n % 5}"
        d.mkdir(parents=True, exist_ok=True)
        x = r.random()
        if x < 0.7:
            (d / f"job_{n}.py").write_text(job(r, n, a.scale))
        elif x < 0.9:
            (d / f"analysis_{n}.ipynb").write_text(notebook(r, n, a.scale))
        else:
            (d / f"notebook_{n}.py").write_text(databricks(r, n, a.scale))


if __name__ == "__main__":
    main()
