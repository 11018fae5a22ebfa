#!/bin/sh
# The retrieval log of this example, replayed: how ledger.json was made. Each source gets its id
# at retrieval time (`add`), then verbatim evidence from the page that was read (`quote --from`).
# Re-running it rewrites ledger.json (quote dates become today's); `make` never runs it.
set -eu
cd "$(dirname "$0")"
CITELEDGER=${CITELEDGER:-citeledger}
cl() { $CITELEDGER --ledger ledger.json "$@"; }

cl reset
cl add https://www.shokuhin-loss.jp/data/katei-2023 \
  --title "家庭から出る食品ロスの推計（2023年度）" --accessed 2025-03-03
cl add https://www.kurashi-lab.jp/research/reizouko-kanri \
  --title "冷蔵庫の管理と家庭の食品廃棄に関する調査報告" --accessed 2025-03-03
cl add https://www.shohi-kigen.org/faq/kigen-no-chigai \
  --title "よくある質問：賞味期限と消費期限はどう違うのですか" --accessed 2025-03-04
cl add https://www.city-minamikawa.jp/gomi/kumisei-chousa-r5 \
  --title "南川市 家庭ごみ組成調査 結果の概要（令和5年度）" --accessed 2025-03-04
cl add https://www.foodbank-network.jp/about/shikumi \
  --title "フードバンクの仕組み" --accessed 2025-03-05
cl add https://www.kurashi-lab.jp/research/kondate-app \
  --title "献立アプリの利用と食品廃棄量 実証実験の結果" --accessed 2025-03-05

q() { id=$1 page=$2; shift 2; cl quote "$id" --from "pages/$page" --text "$*"; }

q 1 01-katei-shokuhin-loss.html "2023年度に家庭から発生した食品ロスは、年間約236万トンと推計されました。"
q 1 01-katei-shokuhin-loss.html "国民一人当たりに換算すると、毎日おにぎり約一個分の食品を捨てている計算になります。"
q 2 02-reizouko-kanri.txt "冷蔵庫の中身を週に一度確認している家庭では、そうでない家庭に比べて食品の廃棄量が約3割少なかった。"
q 2 02-reizouko-kanri.txt "「先に食べるもの」を置く棚を決めておくと、冷蔵庫の奥で忘れられる食品が減る"
q 3 03-kigen-no-chigai.html "賞味期限を過ぎても、すぐに食べられなくなるわけではありません。"
q 3 03-kigen-no-chigai.html "消費期限は、安全に食べられる期限です。"
q 3 03-kigen-no-chigai.html "おいしく食べられる期限です。"
q 4 04-minamikawa-gomi-chousa.txt "半分近くは手つかずのまま捨てられた食品であった。"
q 4 04-minamikawa-gomi-chousa.txt "食品を捨てた理由として最も多かったのは「期限切れ」で、回答者の約4割がこれを挙げた。"
q 5 05-foodbank.html "未開封で、期限内の食品であれば、家庭からの寄付も受け付けています。"
q 5 05-foodbank.html "多くのフードバンクでは、賞味期限まで1か月以上ある食品を受け付けています。"
q 6 06-kondate-app.txt "アプリを使った世帯では、1か月の食品廃棄量が平均で約2割減った。"

# The draft's Sources block is printed by the ledger, never typed.
cl render --style markdown --replace-in deck.md
