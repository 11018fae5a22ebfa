-- citeledger for Quarto: hands the whole document to the pandoc-citeledger JSON filter.
--
-- Quarto runs the filters an extension contributes as Lua, inside its own pandoc; this shim
-- runs citeledger's console script (installed by `pip install citeledger`, `pipx install
-- citeledger` or `uv tool install citeledger`: it must be on PATH when `quarto render` runs)
-- with the output format as its argument, exactly as `pandoc --filter pandoc-citeledger`
-- would, and the input file's name after it, so each finding names the file. The filter's
-- options are the document's `citeledger:` metadata, as in any pandoc build.
--
-- A failed check stops the render. The filter has then printed its findings and one line on
-- stderr: the shim adds nothing (no Lua traceback) and ends pandoc with status 1. When the
-- filter cannot be started at all, the shim says so in one line.

local function input_name()
  local file = nil
  if quarto ~= nil and quarto.doc ~= nil and quarto.doc.input_file ~= nil then
    file = quarto.doc.input_file
  elseif PANDOC_STATE ~= nil and PANDOC_STATE.input_files ~= nil then
    file = PANDOC_STATE.input_files[1]
  end
  if file == nil or file == "" or file == "-" then
    return "input"
  end
  local ok, relative = pcall(pandoc.path.make_relative, file, pandoc.system.get_working_directory())
  if ok and relative ~= nil and relative ~= "" then
    return relative
  end
  return file
end

function Pandoc(doc)
  local ok, result = pcall(pandoc.utils.run_json_filter, doc, "pandoc-citeledger",
    { FORMAT, input_name() })
  if ok then
    return result
  end
  local message = tostring(result)
  if message:find("Could not find executable", 1, true) then
    io.stderr:write("citeledger: pandoc-citeledger is not on PATH; install citeledger "
      .. "(pipx install citeledger) in the environment quarto render runs in\n")
  elseif not message:find("Filter returned error status", 1, true) then
    io.stderr:write("citeledger: " .. message:gsub("\n", " ") .. "\n")
  end
  os.exit(1)
end
