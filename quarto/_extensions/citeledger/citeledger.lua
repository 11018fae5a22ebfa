-- citeledger for Quarto: hands the whole document to the pandoc-citeledger JSON filter.
--
-- Quarto runs the filters an extension contributes as Lua, inside its own pandoc; this shim
-- runs citeledger's console script (installed by `pip install citeledger`; the environment it
-- is in must be on PATH when `quarto render` runs) with the output format as its argument,
-- exactly as `pandoc --filter pandoc-citeledger` would. The filter's options are the
-- document's `citeledger:` metadata, as in any pandoc build. A failed check stops the render:
-- the filter's findings are on stderr and pandoc.utils.run_json_filter raises.

function Pandoc(doc)
  return pandoc.utils.run_json_filter(doc, "pandoc-citeledger", { FORMAT })
end
