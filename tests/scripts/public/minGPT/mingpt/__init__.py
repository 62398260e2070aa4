# Vendored for ember's test corpus (tests/scripts/test_public_programs.py) from
# https://github.com/karpathy/minGPT, mingpt/__init__.py, at commit
# 37baab71b9abea1b76ab957409a1cc2fbfba8a26
# (MIT licence; its text is in LICENSE at the top of this program's folder).
# Changed: nothing (the test passes a short configuration on the command line).
