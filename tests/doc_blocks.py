"""The fenced code blocks of a Markdown page, for the checks that run a
page's commands as written (ci_doc_check.py, learn_commands.py)."""


def fenced_blocks(page, language):
    """The lines of every ```<language> block of `page` (a Path), in order;
    an unclosed block ends the check with a message."""
    out, current = [], None
    for line in page.read_text().splitlines():
        if current is None:
            if line.strip() == "```" + language:
                current = []
        elif line.strip() == "```":
            out.append(current)
            current = None
        else:
            current.append(line)
    if current is not None:
        raise SystemExit(f"{page}: an unclosed ```{language} block")
    return out
