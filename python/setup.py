"""The planlint wheel: the portable binary (a wheel script, so pip puts it on PATH), the shared
libraries it loads through its $ORIGIN/../lib/planlint run path (wheel data, installed under the
environment's prefix), and the `planlint` Python package. Built by scripts/build-wheel.sh, which
stages the binary in bin/ and the libraries in lib/ beside this file; see there."""

import glob
import os

from setuptools import setup  # noqa: I001 (setuptools first: it provides distutils)
from distutils.command.build_scripts import build_scripts
from wheel.bdist_wheel import bdist_wheel

here = os.path.dirname(os.path.abspath(__file__))
version = os.environ["PLANLINT_WHEEL_VERSION"]
platform_tag = os.environ["PLANLINT_WHEEL_PLATFORM"]


class PlatformWheel(bdist_wheel):
    """A platform wheel for any Python 3: the binary does not link against Python."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", platform_tag


class CopyScripts(build_scripts):
    """The script is an ELF binary: copied as it is (setuptools would read it as Python source)."""

    def copy_scripts(self):
        self.mkpath(self.build_dir)
        outfiles = []
        for script in self.scripts:
            out = os.path.join(self.build_dir, os.path.basename(script))
            self.copy_file(script, out)
            os.chmod(out, 0o755)
            outfiles.append(out)
        return outfiles, outfiles


libs = sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(here, "lib", "*")))
licenses = sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(here, "licenses", "*")))
setup(
    name="planlint",
    version=version,
    description="Static analyzer for Apache Spark plans, PySpark jobs and notebooks",
    long_description=open(os.path.join(here, "README.md"), encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.8",
    packages=["planlint"],
    scripts=["bin/planlint"],
    data_files=[("lib/planlint", libs), ("share/doc/planlint/licenses", licenses)],
    cmdclass={"bdist_wheel": PlatformWheel, "build_scripts": CopyScripts},
    zip_safe=False,
)
