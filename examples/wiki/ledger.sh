#!/bin/sh
# The retrieval log of this example, replayed: how ledger.json was made. Each source gets its id
# at retrieval time (`add`), then verbatim evidence from the page that was read (`quote --from`).
# Re-running it rewrites ledger.json (quote dates become today's); `make` never runs it.
set -eu
cd "$(dirname "$0")"
CITELEDGER=${CITELEDGER:-citeledger}
cl() { $CITELEDGER --ledger ledger.json "$@"; }

cl reset
cl add https://www.compostcollective.org/guides/getting-started \
  --title "Getting started with home composting" --accessed 2025-01-20
cl add https://extension.greenvale.edu/factsheets/carbon-nitrogen-ratio \
  --title "The carbon to nitrogen ratio in compost" --accessed 2025-01-20
cl add https://extension.greenvale.edu/factsheets/hot-composting \
  --title "Hot composting: temperatures and turning" --accessed 2025-01-21
cl add https://www.wormfarmers.net/care/feeding-guide \
  --title "Feeding guide for composting worms" --accessed 2025-01-21
cl add https://www.bokashi-kitchen.org/how-it-works \
  --title "How bokashi fermentation works" --accessed 2025-01-22
cl add https://www.compostcollective.org/guides/troubleshooting \
  --title "Compost troubleshooting" --accessed 2025-01-22
cl add doi:10.5555/compost-pathogens.2018.31 \
  --title "Pathogen reduction in thermophilic composting" --accessed 2025-01-23
cl add https://www.soilhealthnotes.org/compost/application-rates \
  --title "How much compost to use" --accessed 2025-01-23

q() { id=$1 page=$2; shift 2; cl quote "$id" --from "pages/$page" --text "$*"; }

q 1 01-getting-started.html "About a third of what a typical household throws away is kitchen \
and garden waste that could be composted instead."
q 1 01-getting-started.html "A compost heap needs four things: green material such as vegetable \
scraps and grass clippings, brown material such as dry leaves and cardboard, water, and air."
q 1 01-getting-started.html "Choose a level, well-drained spot in partial shade, close enough to \
the kitchen that you will use it in winter too."
q 1 01-getting-started.html "Keep the heap about as moist as a wrung-out sponge."
q 2 02-carbon-nitrogen.txt "Composting works fastest when the mix starts at a carbon to \
nitrogen ratio of about 25 to 30 parts carbon to 1 part nitrogen."
q 2 02-carbon-nitrogen.txt "two to three buckets of brown material for every bucket of green \
material gives a workable mix"
q 3 03-hot-composting.txt "A hot compost heap should be at least one cubic metre in size so \
that it can hold its own heat."
q 3 03-hot-composting.txt "When the mix is right, the centre of the heap reaches 55 to 65 °C \
within a few days."
q 3 03-hot-composting.txt "Turning the heap every week or two moves the cooler outer material \
into the hot centre and lets in fresh air."
q 3 03-hot-composting.txt "A well-managed hot heap can produce finished compost in eight to \
twelve weeks."
q 4 04-worm-feeding.html "A healthy worm bin can process roughly half the worms' own weight in \
food scraps each day."
q 4 04-worm-feeding.html "Avoid feeding worms citrus peel, onions, meat and dairy products, \
which can make the bin acidic or attract pests."
q 4 04-worm-feeding.html "Bury fresh scraps under the bedding to keep fruit flies away."
q 5 05-bokashi.html "Bokashi is a fermentation method rather than true composting"
q 5 05-bokashi.html "Unlike an ordinary heap, a bokashi bucket can take cooked food, meat and \
dairy."
q 5 05-bokashi.html "After about two weeks of fermentation the contents must be buried in soil \
or added to a compost heap, where they break down within a month."
q 6 06-troubleshooting.html "A heap that smells of rotten eggs or ammonia is usually too wet or \
has too much green material"
q 6 06-troubleshooting.html "A heap that stays cold is usually too dry, too small or short of \
nitrogen."
q 6 06-troubleshooting.html "Rodents are attracted by cooked food, meat and bread, so keep these \
out of open heaps."
q 7 07-pathogen-reduction.txt "Holding all of the material at 55 °C or more for at least three \
days killed the common pathogens and most weed seeds."
q 7 07-pathogen-reduction.txt "Home heaps rarely heat evenly"
q 8 08-application-rates.txt "spreading a layer of compost 2 to 5 centimetres thick each year is \
enough to improve soil structure and supply slow-release nutrients"
q 8 08-application-rates.txt "Compost that is ready to use is dark and crumbly, smells of earth, \
and no longer contains recognisable scraps."
q 8 08-application-rates.txt "Using compost as a top layer rather than digging it in protects \
soil life and reduces weeds."

# The draft's Sources block is printed by the ledger, never typed.
cl render --style markdown --replace-in compost-wiki.md
