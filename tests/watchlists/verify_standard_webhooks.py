"""Verifies webhook requests with the Standard Webhooks library
(`standardwebhooks` on PyPI), as a receiver of mediaops' generic webhook
would (docs/watchlists.md "Generic webhook"). Run by tests/e2e/watchlists.rs.

Reads from stdin {"requests": [{"secret": str, "raw": bool, "headers": {name: value},
"body": <base64 of the raw body>}]}: a `raw` secret (no `whsec_` prefix) is
given to the library as its UTF-8 bytes, a `whsec_` one as it is. The
library checks the signature and that the timestamp is within 5 minutes
of now.

Prints {"verified": <count>}; exits 1 naming the first request that does
not verify, 2 when the library is missing.
"""

import base64
import json
import sys

try:
    from standardwebhooks import Webhook
except ImportError:
    print("MISSING: standardwebhooks (pip install standardwebhooks; .ci/run installs it)", file=sys.stderr)
    sys.exit(2)

requests = json.load(sys.stdin)["requests"]
for i, request in enumerate(requests):
    secret = request["secret"].encode() if request["raw"] else request["secret"]
    body = base64.b64decode(request["body"])
    try:
        payload = Webhook(secret).verify(body, request["headers"])
    except Exception as error:  # the library's WebhookVerificationError, or a malformed secret
        print(f"request {i} ({request['headers'].get('webhook-id')}) does not verify: {error}", file=sys.stderr)
        sys.exit(1)
    assert payload["digestId"] == request["headers"]["webhook-id"], payload["digestId"]
print(json.dumps({"verified": len(requests)}))
