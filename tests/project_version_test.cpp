// The PySpark version a project pins: specifiers, each kind of project file, and the upward search.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "lint/project_version.hpp"

using namespace planlint::lint;
namespace fs = std::filesystem;

TEST_CASE("a PEP 440 specifier gives the lowest version it allows", "[project-version]") {
  CHECK(lowest_allowed("==3.1.2") == "3.1.2");
  CHECK(lowest_allowed("===3.1.2") == "3.1.2");
  CHECK(lowest_allowed(">=3.0,<3.2") == "3.0");
  CHECK(lowest_allowed(" >= 3.0 , < 3.2 ") == "3.0");
  CHECK(lowest_allowed("<3.2,>=3.0") == "3.0");
  CHECK(lowest_allowed("~=3.2.0") == "3.2.0");
  CHECK(lowest_allowed("~=3.3") == "3.3");
  CHECK(lowest_allowed("==3.1.*") == "3.1");
  CHECK(lowest_allowed(">3.2") == "3.2");
  CHECK(lowest_allowed(">=3.0,>=3.1,!=3.1.1") == "3.1");
  CHECK(lowest_allowed("==3.5.0rc1") == "3.5.0");
  // Only an upper bound: the newest minor release below it.
  CHECK(lowest_allowed("<3.3") == "3.2");
  CHECK(lowest_allowed("<3.3.0") == "3.2");
  CHECK(lowest_allowed("<3.2.4") == "3.2");
  CHECK(lowest_allowed("<=3.2.4") == "3.2");
  CHECK(!lowest_allowed("<4"));
  CHECK(!lowest_allowed("<3.0"));
  CHECK(!lowest_allowed("!=3.1.0"));
  CHECK(!lowest_allowed(""));
  CHECK(!lowest_allowed("==x"));
}

TEST_CASE("a Poetry constraint gives the lowest version it allows", "[project-version]") {
  CHECK(lowest_allowed_poetry("^3.1") == "3.1");
  CHECK(lowest_allowed_poetry("~3.1.2") == "3.1.2");
  CHECK(lowest_allowed_poetry("3.1.2") == "3.1.2");
  CHECK(lowest_allowed_poetry("3.1.*") == "3.1");
  CHECK(lowest_allowed_poetry(">=3.0,<3.2") == "3.0");
  CHECK(lowest_allowed_poetry(">= 3.0 < 3.2") == "3.0");
  CHECK(lowest_allowed_poetry("^3.3 || ^3.1") == "3.1");
  CHECK(lowest_allowed_poetry("~=3.2.0") == "3.2.0");
  CHECK(!lowest_allowed_poetry("*"));
  CHECK(!lowest_allowed_poetry("^3.1 || *"));
}

TEST_CASE("a Databricks runtime gives the Spark version it ships", "[project-version]") {
  CHECK(spark_of_databricks_runtime("10.4.x-scala2.12") == "3.2");
  CHECK(spark_of_databricks_runtime("11.3.x-scala2.12") == "3.3");
  CHECK(spark_of_databricks_runtime("12.2.x-scala2.12") == "3.3");
  CHECK(spark_of_databricks_runtime("13.3.x-scala2.12") == "3.4");
  CHECK(spark_of_databricks_runtime("14.3.x-photon-scala2.12") == "3.5");
  CHECK(spark_of_databricks_runtime("15.4.x-cpu-ml-scala2.12") == "3.5");
  CHECK(spark_of_databricks_runtime("16.2.x-scala2.12") == "3.5");
  CHECK(spark_of_databricks_runtime("13.3") == "3.4");
  CHECK(!spark_of_databricks_runtime("9.1.x-scala2.12"));  // not in the table: not guessed
  CHECK(!spark_of_databricks_runtime("latest"));
}

TEST_CASE("only a requirement of pyspark or databricks-connect pins", "[project-version]") {
  CHECK(spark_of_requirement("pyspark==3.1.2") == "3.1.2");
  CHECK(spark_of_requirement("PySpark >= 3.0, < 3.2") == "3.0");
  CHECK(spark_of_requirement("PYSPARK~=3.2.0") == "3.2.0");
  CHECK(!spark_of_requirement("py_spark~=3.2.0"));  // py-spark, another name
  CHECK(spark_of_requirement("pyspark[sql,pandas_on_spark]==3.3.1 ; python_version >= '3.8'") == "3.3.1");
  CHECK(spark_of_requirement("pyspark (>=3.4)") == "3.4");
  CHECK(spark_of_requirement("databricks-connect==13.3.2") == "3.4");
  CHECK(spark_of_requirement("databricks-connect>=14.3,<14.4") == "3.5");
  CHECK(!spark_of_requirement("pyspark"));
  CHECK(!spark_of_requirement("pyspark @ https://example.com/pyspark-3.1.2.tar.gz"));
  CHECK(!spark_of_requirement("pyspark-stubs==3.0.0"));
  CHECK(!spark_of_requirement("delta-spark==3.1.0"));
  CHECK(!spark_of_requirement("spark==3.1.2"));
  CHECK(!spark_of_requirement("databricks-sdk==0.20"));
}

TEST_CASE("each kind of project file is read for its pin", "[project-version]") {
  CHECK(spark_pinned_by_requirements_txt("# pinned\n-r base.txt\nnumpy==1.26\npyspark==3.1.2  # the cluster's\n") ==
        "3.1.2");
  CHECK(spark_pinned_by_requirements_txt("pyspark==3.3.0 \\\n    --hash=sha256:abc\n") == "3.3.0");
  CHECK(spark_pinned_by_requirements_txt("pyspark>=3.0,<3.2\n") == "3.0");
  CHECK(!spark_pinned_by_requirements_txt("# pyspark==3.1.2\npyspark-stubs==3.0\n"));

  CHECK(spark_pinned_by_pyproject("[project]\nname = \"j\"\ndependencies = [\"requests\", \"pyspark==3.1.2\"]\n") ==
        "3.1.2");
  CHECK(spark_pinned_by_pyproject("[project.optional-dependencies]\ndev = [\"pyspark>=3.4\"]\n") == "3.4");
  CHECK(spark_pinned_by_pyproject("[dependency-groups]\ntest = [\"pyspark~=3.2.0\", {include-group = \"x\"}]\n") ==
        "3.2.0");
  CHECK(spark_pinned_by_pyproject("[tool.poetry.dependencies]\npython = \"^3.10\"\npyspark = \"^3.1\"\n") == "3.1");
  CHECK(spark_pinned_by_pyproject("[tool.poetry.dependencies]\npyspark = { version = \"3.3.2\", optional = true }\n") ==
        "3.3.2");
  CHECK(spark_pinned_by_pyproject("[tool.poetry.group.dev.dependencies]\nPySpark = \"~3.5.0\"\n") == "3.5.0");
  CHECK(spark_pinned_by_pyproject("[tool.uv]\ndev-dependencies = [\"pyspark==3.4.1\"]\n") == "3.4.1");
  // Several pins: the lowest.
  CHECK(spark_pinned_by_pyproject("[project]\ndependencies = [\"pyspark>=3.5\"]\n"
                                  "[tool.poetry.dev-dependencies]\npyspark = \"3.3.0\"\n") == "3.3.0");
  CHECK(!spark_pinned_by_pyproject("[project]\nname = \"j\"\n[tool.planlint]\nselect = [\"ALL\"]\n"));
  CHECK(!spark_pinned_by_pyproject("[project\nbroken"));
  CHECK(!spark_pinned_by_pyproject("[tool.poetry.dependencies]\npython = \"^3.10\"\n"));

  CHECK(spark_pinned_by_setup_py("from setuptools import setup\n\"\"\"Uses pyspark==9.9.\"\"\"\n"
                                 "setup(name='j', install_requires=['pyspark>=3.0,<3.2', \"numpy\"])\n") == "3.0");
  CHECK(!spark_pinned_by_setup_py("setup(name='pyspark-job')  # pyspark==3.1.2\n"));

  CHECK(spark_pinned_by_setup_cfg("[metadata]\nname = pyspark==9.9\n[options]\ninstall_requires =\n"
                                  "    requests\n    pyspark==3.1.2\n") == "3.1.2");
  CHECK(spark_pinned_by_setup_cfg("[options.extras_require]\nspark = pyspark>=3.3\n") == "3.3");
  CHECK(!spark_pinned_by_setup_cfg("[metadata]\nname = pyspark==3.1.2\n"));

  CHECK(spark_pinned_by_environment_yml("name: etl\ndependencies:\n  - python=3.9\n  - pyspark=3.1\n") == "3.1");
  CHECK(spark_pinned_by_environment_yml("dependencies:\n  - conda-forge::pyspark=3.2.1=pyhd8ed1ab_0\n") == "3.2.1");
  CHECK(spark_pinned_by_environment_yml("dependencies:\n  - pyspark 3.3.*\n") == "3.3");
  CHECK(spark_pinned_by_environment_yml("dependencies:\n  - pip\n  - pip:\n    - \"pyspark==3.4.0\"\n") == "3.4.0");
  CHECK(spark_pinned_by_environment_yml("dependencies:\n  - pyspark>=3.0,<3.2\n") == "3.0");
  CHECK(!spark_pinned_by_environment_yml("dependencies:\n  - pyspark\n  - pyspark-stubs=3.0\n"));

  CHECK(spark_pinned_by_databricks_bundle("resources:\n  jobs:\n    etl:\n      job_clusters:\n        - new_cluster:\n"
                                          "            spark_version: 13.3.x-scala2.12\n") == "3.4");
  CHECK(spark_pinned_by_databricks_bundle("variables:\n  runtime:\n    default: \"15.4.x-photon-scala2.12\"\n"
                                          "x: {\"spark_version\": \"12.2.x-scala2.12\"}\n") == "3.3");
  CHECK(!spark_pinned_by_databricks_bundle("spark_version: ${var.runtime}\nnode_type_id: i3.x-large\n"));
}

TEST_CASE("versions are ordered by their numbers", "[project-version]") {
  CHECK(older_version("3.1.2", "3.2"));
  CHECK(older_version("3.2", "3.10"));
  CHECK(!older_version("3.2", "3.2.0"));
  CHECK(!older_version("3.5", "3.4.9"));
}

namespace {

struct Tree {
  fs::path root;
  Tree() {
    std::random_device rd;
    root = fs::temp_directory_path() / ("planlint-pv-" + std::to_string(rd()));
    fs::create_directories(root);
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
};

}  // namespace

TEST_CASE("the closest folder with a pin wins, within the project", "[project-version]") {
  Tree t;
  t.write("repo/.git/HEAD", "ref: refs/heads/main\n");
  t.write("repo/requirements.txt", "pyspark==3.5.1\n");
  t.write("repo/jobs/nightly/job.py", "");
  t.write("repo/legacy/setup.py", "setup(install_requires=['pyspark==3.1.2'])\n");
  t.write("repo/legacy/etl/job.py", "");
  t.write("requirements.txt", "pyspark==2.4.8\n");  // above the repository: never read
  t.write("other/jobs/job.py", "");
  ProjectVersionFinder finder;
  auto nightly = finder.find(t.root / "repo/jobs/nightly");
  REQUIRE(nightly);
  CHECK(nightly->version == "3.5.1");
  CHECK(nightly->file == t.root / "repo/requirements.txt");
  auto legacy = finder.find(t.root / "repo/legacy/etl");
  REQUIRE(legacy);
  CHECK(legacy->version == "3.1.2");
  // The search stops at the repository's root (.git) and at the configuration's folder.
  CHECK(finder.find(t.root / "repo/legacy/etl/../../jobs/nightly/")->version == "3.5.1");
  t.write("repo/jobs/planlint.toml", "");
  ProjectVersionFinder fresh;
  CHECK(!fresh.find(t.root / "repo/jobs/nightly", t.root / "repo/jobs"));
  CHECK(fresh.find(t.root / "other/jobs")->version == "2.4.8");  // no .git: up to the pin above
}

TEST_CASE("the lowest pin of a folder wins, whatever the order of its files", "[project-version]") {
  Tree t;
  t.write(".git", "gitdir: /elsewhere\n");  // a worktree's .git is a file
  t.write("requirements.txt", "pyspark==3.5.0\n");
  t.write("requirements-dev.txt", "pyspark==3.4.1\n");
  t.write("requirements/ci.txt", "pyspark==3.3.2\n");
  t.write("pyproject.toml", "[tool.poetry.dependencies]\npyspark = \"^3.4\"\n");
  t.write("environment.yml", "dependencies:\n  - pyspark=3.5\n");
  ProjectVersionFinder finder;
  auto pin = finder.find(t.root);
  REQUIRE(pin);
  CHECK(pin->version == "3.3.2");
  CHECK(pin->file == t.root / "requirements/ci.txt");
  // A Databricks bundle: its resources' clusters count.
  t.write("bundle/databricks.yml", "bundle:\n  name: etl\ninclude:\n  - resources/*.yml\n");
  t.write("bundle/resources/etl.job.yml", "      spark_version: 13.3.x-scala2.12\n");
  t.write("bundle/resources/old.job.yml", "      spark_version: 12.2.x-scala2.12\n");
  auto bundle = finder.find(t.root / "bundle");
  REQUIRE(bundle);
  CHECK(bundle->version == "3.3");
  CHECK(bundle->file == t.root / "bundle/resources/old.job.yml");
  // resources/ without a bundle file is not read.
  t.write("plain/resources/x.yml", "spark_version: 10.4.x-scala2.12\n");
  t.write("plain/.git/HEAD", "");
  CHECK(!finder.find(t.root / "plain"));
}

TEST_CASE("each folder is read once per finder", "[project-version]") {
  Tree t;
  t.write(".git/HEAD", "");
  t.write("requirements.txt", "pyspark==3.1.2\n");
  t.write("a/b/job.py", "");
  ProjectVersionFinder finder;
  CHECK(finder.find(t.root / "a/b")->version == "3.1.2");
  t.write("requirements.txt", "pyspark==3.5.0\n");
  t.write("a/requirements.txt", "pyspark==3.4.0\n");
  CHECK(finder.find(t.root / "a/b")->version == "3.1.2");  // what this run read first
  CHECK(finder.find(t.root)->version == "3.1.2");
  ProjectVersionFinder next_run;
  CHECK(next_run.find(t.root / "a/b")->version == "3.4.0");
  CHECK(next_run.find(t.root)->version == "3.5.0");
}

TEST_CASE("a repository that holds Databricks notebooks, source or Jupyter exports, runs on Databricks",
          "[project-version]") {
  Tree t;
  t.write("source/.git/HEAD", "");
  t.write("source/jobs/etl.py", "from pyspark.sql import SparkSession\n");
  t.write("source/notebooks/run.py", "# Databricks notebook source\nprint(1)\n");
  t.write("exported/.git/HEAD", "");
  t.write("exported/src/pkg/load.py", "import pandas as pd\n");
  t.write("exported/notebooks/run.ipynb",
          "{\"cells\": [{\"cell_type\": \"code\", \"metadata\": {\"application/vnd.databricks.v1+cell\": {}}, "
          "\"source\": [\"print(1)\"]}]}\n");
  t.write("plain/.git/HEAD", "");
  t.write("plain/src/job.py", "from pyspark.sql import SparkSession\n");
  t.write("plain/notebooks/explore.ipynb",
          "{\"cells\": [], \"metadata\": {\"kernelspec\": {\"name\": \"python3\"}}}\n");
  ProjectVersionFinder finder;
  CHECK(finder.in_databricks_repository(t.root / "source/jobs"));
  CHECK(finder.in_databricks_repository(t.root / "exported/src/pkg"));
  CHECK(!finder.in_databricks_repository(t.root / "plain/src"));
}
