"""The Typer application and its sub-command groups. Command modules register on these."""

import typer

from geobias.cli._generated import group_class

app = typer.Typer(
    name="geobias",
    cls=group_class(""),  # offers the registered commands, built from their models
    help="Measure and mitigate gender bias in word representations (static and contextual).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # plain click help (`[cosine|dot]` choices): Typer's rich help imports rich.markdown and
    # markdown-it, half of `geobias --help`'s time
    rich_markup_mode=None,
)
vectors_app = typer.Typer(help="List, install, inspect and pool vector sources.", no_args_is_help=True,
                          rich_markup_mode=None, cls=group_class("vectors "))
probe_app = typer.Typer(help="Probe masked language models (Kurita, BEC-Pro, MALoR).", no_args_is_help=True,
                        rich_markup_mode=None, cls=group_class("probe "))
becpro_app = typer.Typer(help="The BEC-Pro corpus (Bartl et al. 2020).", no_args_is_help=True,
                         rich_markup_mode=None, cls=group_class("becpro "))

data_app = typer.Typer(help="Evaluation data you fetch once: MUSE dictionaries, the GAP corpus.", no_args_is_help=True,
                       rich_markup_mode=None, cls=group_class("data "))

app.add_typer(vectors_app, name="vectors")
app.add_typer(data_app, name="data")
app.add_typer(probe_app, name="probe")
app.add_typer(becpro_app, name="becpro")


def _version(value: bool) -> None:
    if value:
        from geobias import __version__

        print(f"geobias {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", callback=_version, is_eager=True),
) -> None:
    """Measure and mitigate gender bias in word representations (static and contextual)."""
