#!/bin/sh
# The retrieval log of this example, replayed: how ledger.json was made. Each source gets its id
# at retrieval time (`add`), then verbatim evidence from the page that was read (`quote --from`).
# Re-running it rewrites ledger.json (quote dates become today's); `make` never runs it.
set -eu
cd "$(dirname "$0")"
CITELEDGER=${CITELEDGER:-citeledger}
cl() { $CITELEDGER --ledger ledger.json "$@"; }

cl reset
cl add https://www.heatresilience.org/guides/urban-heat-island \
  --title "What is an urban heat island?" --accessed 2025-02-03
cl add doi:10.5555/roof-membranes.2019.0412 \
  --title "Measured surface temperatures of white and dark membranes on low-slope roofs" \
  --accessed 2025-02-03
cl add https://buildingenergylab.org/reports/cool-roof-savings-2021 \
  --title "Cooling energy savings from reflective roofs in single-storey commercial buildings" \
  --accessed 2025-02-04
cl add https://www.roofingresearch.net/articles/weathering-of-reflective-roofs \
  --title "How reflective roofs age: soiling, weathering and cleaning" --accessed 2025-02-04
cl add https://urbangreeninfrastructure.eu/evidence/green-vs-cool-roofs \
  --title "Green roofs and cool roofs compared" --accessed 2025-02-05
cl add https://doi.org/10.5555/heat-mortality.2020.118 \
  --title "Extreme heat and excess mortality in a mid-latitude city" --accessed 2025-02-05
cl add "https://www.coolroofsurvey.org/2024/installed-costs?region=eu" \
  --title "Cool Roof Survey 2024: installed costs" --accessed 2025-02-10
cl add https://www.rivertoncity.org/climate/cool-roofs-programme \
  --title "Riverton Cool Roofs Programme: results of the first three summers" \
  --accessed 2025-02-11
cl add https://buildingenergylab.org/reports/winter-heating-penalty \
  --title "The winter heating penalty of reflective roofs" --accessed 2025-02-11
cl add doi:10.5555/citywide-albedo.2022.007 \
  --title "Simulated city-wide effects of raising roof albedo" --accessed 2025-02-12
cl add https://www.planningadvice.org.uk/guidance/reflective-roofs-and-glare \
  --title "Reflective roofs and glare: planning guidance" --accessed 2025-02-12
cl add https://www.rivertoncity.org/building-code/section-7-roofs \
  --title "Building code, section 7: roofs" --accessed 2025-02-13

q() { id=$1 page=$2; shift 2; cl quote "$id" --from "pages/$page" --text "$*"; }

q 1 01-heat-island-basics.html "Built-up areas are measurably warmer than the rural land around \
them, and dark roofs and pavements are among the main reasons."
q 1 01-heat-island-basics.html "Buildings and paving absorb sunlight during the day and release \
the stored heat after sunset."
q 1 01-heat-island-basics.html "On calm, clear summer nights the difference between a city \
centre and nearby farmland can reach 5 to 7 °C."
q 2 02-roof-membrane-temperatures.txt "We measured surface temperatures on pairs of otherwise \
identical low-slope commercial buildings, one roofed with a new white membrane and one with a \
dark membrane."
q 2 02-roof-membrane-temperatures.txt "On clear July afternoons the dark membranes peaked near \
75 °C, while the white membranes stayed near 42 °C."
q 2 02-roof-membrane-temperatures.txt "The largest difference recorded on a single afternoon was \
33 °C."
q 3 03-cooling-energy-savings.txt "Savings are largest where the roof is the main path by which \
heat enters the building."
q 3 03-cooling-energy-savings.txt "For single-storey retail and warehouse buildings with little \
or no roof insulation, annual cooling energy fell by 10 to 20 percent."
q 3 03-cooling-energy-savings.txt "In buildings insulated to current code the saving was below \
5 percent"
q 3 03-cooling-energy-savings.txt "Most of the metered buildings in this review are located in \
warm and hot climates."
q 4 04-weathering.html "Reflective membranes lose part of their reflectance during the first \
three years as dust, soot and biological growth accumulate."
q 4 04-weathering.html "A typical white single-ply membrane falls from a solar reflectance of \
about 0.80 when new to about 0.60 after three years of exposure."
q 4 04-weathering.html "Washing with a low-pressure rinse restores most of the lost reflectance."
q 5 05-green-vs-cool-roofs.txt "Green roofs cool mainly through evaporation and shading rather \
than reflection, and they retain a share of the rainfall that lands on them."
q 5 05-green-vs-cool-roofs.txt "They cost more than reflective roofs and often need a stronger \
roof structure, which is why they cover a smaller share of roofs in most cities."
q 5 05-green-vs-cool-roofs.txt "extensive green roofs reduced peak surface temperatures by 15 to \
25 °C compared with dark roofs"
q 6 06-heat-mortality.html "Each 1 °C above the local heat threshold was associated with an \
increase of about 3 percent in daily deaths."
q 6 06-heat-mortality.html "Because the risk rises steeply above the threshold, measures that \
lower peak temperatures even slightly are likely to reduce deaths during heat waves."
q 7 07-installed-costs.txt "When a roof is being replaced anyway, specifying a white membrane \
instead of a dark one adds little or nothing to the price."
q 7 07-installed-costs.txt "Installers reported added costs of 0 to 5 euros per square metre \
for white single-ply membranes in 2024."
q 7 07-installed-costs.txt "Reflective coatings applied to an existing roof cost 10 to 20 euros \
per square metre, depending on how much surface preparation is needed."
q 8 08-riverton-programme.html "In its first three summers the programme coated 312 roofs \
across the city."
q 8 08-riverton-programme.html "Occupants of participating buildings reported top-floor indoor \
temperatures 1.5 to 2 °C lower during heat waves."
q 9 09-winter-heating-penalty.txt "In cold climates a reflective roof raises winter heating \
demand, but the penalty is usually smaller than the summer saving because the winter sun is low \
and weak."
q 10 10-citywide-albedo.txt "In the modelled city, roofs made up roughly 20 to 25 percent of the \
land surface."
q 10 10-citywide-albedo.txt "Raising roof albedo across the whole city lowered near-surface \
afternoon air temperature by a few tenths of a degree."
q 10 10-citywide-albedo.txt "The largest cooling, about 0.4 °C, was simulated in dense districts \
dominated by flat roofs."
q 11 11-glare-guidance.html "Very bright roofs can cause glare for occupants of taller \
neighbouring buildings"
q 11 11-glare-guidance.html "Diffuse, matt finishes are preferred to mirror-like ones."
q 12 12-building-code-roofs.html "This section sets minimum thermal insulation levels for new \
and replacement roofs."

# The draft's Sources block is printed by the ledger, never typed.
cl render --style markdown --replace-in report.md
