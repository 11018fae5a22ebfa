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

-- Quarto runs citeproc after every filter. A note-style CSL then moves its notes past the
-- punctuation of marks citeledger already placed (".[" note "1]"). With such a style the shim
-- runs citeproc itself first, the order `pandoc --citeproc --filter pandoc-citeledger` gives,
-- and Quarto's own citeproc run finds no citation left. Quarto's cross-references (@fig-x,
-- @tbl-x, ...) are kept out of it, as Cites, for Quarto's crossref filter.
local XREF = { fig = 1, tbl = 1, sec = 1, eq = 1, lst = 1, thm = 1, lem = 1, cor = 1,
  prp = 1, cnj = 1, def = 1, exm = 1, exr = 1, sol = 1, rem = 1, alg = 1 }

local function is_xref(cite)
  for _, c in ipairs(cite.citations) do
    local prefix = c.id:match("^(%a+)%-")
    if prefix == nil or XREF[prefix:lower()] == nil then
      return false
    end
  end
  return true
end

local function note_style(doc)
  local csl = doc.meta.csl or doc.meta["citation-style"]
  if csl == nil or (doc.meta.bibliography == nil and doc.meta.references == nil) then
    return false
  end
  local path = pandoc.utils.stringify(csl)
  local file = io.open(path, "r")
  if file == nil then
    return false
  end
  local head = file:read(4096) or ""
  file:close()
  return head:find('class="note"', 1, true) ~= nil
end

local function citeproc_first(doc)
  local kept = {}
  local hidden = doc:walk({
    Cite = function(cite)
      if is_xref(cite) then
        kept[#kept + 1] = cite
        return pandoc.Span({}, { ["data-citeledger-xref"] = tostring(#kept) })
      end
    end,
  })
  local done = pandoc.utils.citeproc(hidden)
  return done, kept
end

local function restore(doc, kept)
  if #kept == 0 then
    return doc
  end
  return doc:walk({
    Span = function(span)
      local n = span.attributes["data-citeledger-xref"]
      if n ~= nil then
        return kept[tonumber(n)]
      end
    end,
  })
end

function Pandoc(doc)
  local kept = {}
  if note_style(doc) then
    doc, kept = citeproc_first(doc)
  end
  local ok, result = pcall(pandoc.utils.run_json_filter, doc, "pandoc-citeledger",
    { FORMAT, input_name() })
  if ok then
    return restore(result, kept)
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
