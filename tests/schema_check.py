#!/usr/bin/python3
"""Judges JSON files against a JSON Schema (draft 2020-12) with Debian's python3-jsonschema.

    schema_check.py SCHEMA FILE...
    schema_check.py --defaults SCHEMA

Checks the schema itself, then prints one line per file: "valid FILE",
"invalid FILE: POINTER: MESSAGE" or "unparsable FILE: REASON" (JSON that
Python's parser cannot read, such as nesting deeper than its recursion
limit). With --defaults, judges every "default" in the schema by the schema
it stands in: "default POINTER: ok" or "default POINTER: MESSAGE". Exits 0
when every line could be written, 2 when the schema is not a valid draft
2020-12 schema.
"""
import json
import sys

import jsonschema


def defaults(node, pointer=""):
    """(pointer, default, the schema it stands in) for every default in the schema."""
    if isinstance(node, dict):
        if "default" in node:
            own = {k: v for k, v in node.items() if k not in ("default", "description", "markdownDescription")}
            yield pointer, node["default"], own
        for key, value in node.items():
            yield from defaults(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from defaults(value, f"{pointer}/{i}")


def main():
    judge_defaults = sys.argv[1] == "--defaults"
    if judge_defaults:
        del sys.argv[1]
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"the schema is not a valid draft 2020-12 schema: {e.message}")
        return 2
    if judge_defaults:
        for pointer, value, own in defaults(schema):
            error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(own).iter_errors(value))
            print(f"default {pointer}: {'ok' if error is None else error.message[:200]}")
        return 0
    validator = jsonschema.Draft202012Validator(schema)
    for path in sys.argv[2:]:
        try:
            with open(path) as f:
                document = json.load(f)
        except (ValueError, RecursionError) as e:
            print(f"unparsable {path}: {type(e).__name__}")
            continue
        error = jsonschema.exceptions.best_match(validator.iter_errors(document))
        if error is None:
            print(f"valid {path}")
        else:
            pointer = "".join(f"/{p}" for p in error.absolute_path)
            print(f"invalid {path}: {pointer}: {error.message[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
