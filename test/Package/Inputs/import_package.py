# Imports the tiletune package found on PYTHONPATH and prints where the
# package and its extension module came from.
import importlib

package = importlib.import_module("tiletune")
module = importlib.import_module("tiletune._tiletune")
print(package.__file__)
print(module.__file__)
