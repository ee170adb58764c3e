"""Validates the service's OpenAPI document (docs/openapi.md).

Usage: validate.py <openapi.json>

1. The document against the OpenAPI 3.1 meta-schema, with
   openapi-spec-validator (its bundled schemas; nothing pasted here).
2. Every response example against its own schema (JSON Schema 2020-12,
   `$ref`s resolved inside the document), with jsonschema, which
   openapi-spec-validator depends on.
3. Every schema's own `examples` (and `example`), wherever the schema is
   (components, parameters, request bodies, nested properties and items),
   against that schema: what redocly's `no-invalid-schema-examples` checks.

Prints one JSON line {"valid": true, "examples": <responses checked>,
"schemaExamples": <schema examples checked>}; exits 1 naming every problem
(at most 40), 2 when a package is missing.
"""

import json
import sys

try:
    import jsonschema
    from openapi_spec_validator import validate
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError as error:
    print(f"MISSING: {error.name} (pip install openapi-spec-validator; .ci/run installs it)", file=sys.stderr)
    sys.exit(2)

with open(sys.argv[1], encoding="utf-8") as file:
    document = json.load(file)

try:
    validate(document)
except Exception as error:  # the validator's errors quote the whole document: keep the start
    where = "/".join(map(str, getattr(error, "absolute_path", []) or []))
    print(f"not a valid OpenAPI 3.1 document at /{where}: {str(getattr(error, 'message', error)).splitlines()[0][:300]}", file=sys.stderr)
    sys.exit(1)

URI = "urn:mediaops:openapi"
registry = Registry().with_resource(URI, Resource.from_contents(document, default_specification=DRAFT202012))


def pointer(*segments):
    """A JSON pointer (RFC 6901) into the document."""
    return "/" + "/".join(str(s).replace("~", "~0").replace("/", "~1") for s in segments)


checked = 0
for path, item in document["paths"].items():
    for method, operation in item.items():
        for status, response in operation["responses"].items():
            at = ("paths", path, method, "responses", status)
            if "$ref" in response:
                name = response["$ref"].rsplit("/", 1)[1]
                response = document["components"]["responses"][name]
                at = ("components", "responses", name)
            for media_type, content in response.get("content", {}).items():
                schema = {"$ref": f"{URI}#{pointer(*at, 'content', media_type, 'schema')}"}
                validator = jsonschema.Draft202012Validator(schema, registry=registry)
                for name, example in content.get("examples", {}).items():
                    errors = list(validator.iter_errors(example["value"]))
                    if errors:
                        first = errors[0]
                        print(
                            f"{method.upper()} {path} {status} example {name!r} does not match its schema at "
                            f"/{'/'.join(map(str, first.absolute_path))}: {first.message}",
                            file=sys.stderr,
                        )
                        sys.exit(1)
                    checked += 1


def schema_nodes(node, at):
    """Every schema object of the document with examples: an object whose
    `examples` is a list (OpenAPI's own `examples` are maps), or that has
    `example` beside a `type`."""
    if isinstance(node, dict):
        if isinstance(node.get("examples"), list) or ("example" in node and "type" in node):
            yield at, node
        for key, value in node.items():
            yield from schema_nodes(value, at + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from schema_nodes(value, at + (i,))


problems = []
schema_checked = 0
for at, node in schema_nodes(document, ()):
    validator = jsonschema.Draft202012Validator({"$ref": f"{URI}#{pointer(*at)}"}, registry=registry)
    values = list(node.get("examples", [])) if isinstance(node.get("examples"), list) else []
    if "example" in node:
        values.append(node["example"])
    for value in values:
        errors = list(validator.iter_errors(value))
        if errors:
            problems.append(f"{pointer(*at)}: example {json.dumps(value, ensure_ascii=False)} does not match: {errors[0].message}")
        schema_checked += 1
if problems:
    print(f"{len(problems)} schema examples do not match their schema:", file=sys.stderr)
    for problem in problems[:40]:
        print("  " + problem, file=sys.stderr)
    sys.exit(1)
print(json.dumps({"valid": True, "examples": checked, "schemaExamples": schema_checked}))
