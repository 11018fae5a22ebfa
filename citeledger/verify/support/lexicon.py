"""The words the support check reads, in the languages citeledger reads.

citeledger knows a Sources block by its title in English, Chinese, Japanese, Korean, German,
French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Ukrainian, Turkish, Arabic,
Persian, Hebrew and Hindi (:data:`citeledger.document.sources_titles.COMMON_TITLES`); a
sentence written in one of them has its figures, dates and negations read here. One table per
kind of word, every language in it, folded (``str.casefold``) as the text is compared:

- :data:`UNITS`, :data:`TENS`: number words a figure is written with ("twelve", "zwölf",
  "douze", "двенадцать"), one word each;
- :data:`SCALES`: a word or suffix that multiplies the number before it ("million",
  "Millionen", "mln", "万", "亿", "lakh");
- :data:`PERCENT`: the words for per cent ("percent", "Prozent", "pour cent", "процентов");
- :data:`MONTHS`: month names and their usual abbreviations, to their number;
- :data:`NEGATIONS`: the words that turn a statement into its negation, and
  :data:`CJK_NEGATIONS` with the compounds that only look like one ("不同", different;
  "非常", very; "未来", future);
- :data:`GERMAN_HINTS`: words that mark a German sentence, whose nouns are all capitalised (a
  capital there names no one).

The word lists are what a reader of each language writes in a report; they are not a grammar:
German "einundzwanzig", Turkish suffixed negation (``-me``, ``-ma``) and Korean native
numerals are not read.
"""

from __future__ import annotations


def _words(text: str) -> list[str]:
    return text.split()


def _table(rows: dict[int, str]) -> dict[str, int]:
    """A value per line of space-separated words, as a word -> value table."""
    out: dict[str, int] = {}
    for value, words in rows.items():
        for word in words.split():
            out.setdefault(word.casefold(), value)
    return out


UNITS = _table(
    {
        0: "zero null zéro cero nulla nul нуль ноль sıfır",
        1: "one",  # "one of the reasons" is no figure: "one" alone is not read (see numbers)
        2: "two zwei deux dos dois twee dwa два iki",
        3: "three drei trois tres três tre drie trzy три три üç",
        4: "four vier quatre cuatro quatro quattro cztery четыре чотири dört",
        5: "five fünf cinq cinco cinque vijf pięć пять пʼять п'ять beş",
        6: "six sechs seis sei zes sześć шесть шість altı",
        7: "seven sieben sept siete sete sette zeven siedem семь сім yedi",
        8: "eight acht huit ocho oito otto osiem восемь вісім sekiz",
        9: "nine neun neuf nueve nove negen dziewięć девять девʼять дев'ять dokuz",
        10: "ten zehn dix diez dez dieci tien dziesięć десять",
        11: "eleven elf onze once undici jedenaście одиннадцать одинадцять",
        12: "twelve zwölf douze doce dodici twaalf dwanaście двенадцать дванадцять",
        13: "thirteen dreizehn treize trece treze tredici dertien",
        14: "fourteen vierzehn quatorze catorce catorze quattordici veertien",
        15: "fifteen fünfzehn quinze quince quindici vijftien",
        16: "sixteen sechzehn seize dieciséis dezesseis sedici zestien",
        17: "seventeen siebzehn diecisiete dezessete diciassette zeventien",
        18: "eighteen achtzehn dieciocho dezoito diciotto achttien",
        19: "nineteen neunzehn diecinueve dezenove diciannove negentien",
    }
)
TENS = _table(
    {
        20: "twenty zwanzig vingt veinte vinte venti twintig dwadzieścia двадцать двадцять",
        30: "thirty dreißig trente treinta trinta trenta dertig trzydzieści тридцать тридцять",
        40: "forty vierzig quarante cuarenta quarenta quaranta veertig сорок",
        50: "fifty fünfzig cinquante cincuenta cinquenta cinquanta vijftig пятьдесят",
        60: "sixty sechzig soixante sesenta sessenta sessanta zestig шестьдесят",
        70: "seventy siebzig setenta settanta zeventig семьдесят",
        80: "eighty achtzig ochenta oitenta ottanta tachtig восемьдесят",
        90: "ninety neunzig noventa novanta negentig девяносто",
    }
)
SCALES: dict[str, int] = {
    **_table(
        {
            100: "hundred hundert cien ciento cem honderd сто",
            1_000: (
                "thousand thousands tausend mille mil mila duizend tysiąc tysięcy tys "
                "тысяча тысячи тысяч тыс тисяча тисячі тисяч тис هزار אלף אלפים हज़ार हजार"
            ),
            100_000: "lakh lakhs लाख",
            1_000_000: (
                "million millions mio mio. mln mn millionen million millón millones milhão "
                "milhões milione milioni miljoen miljoenen milion miliony milionów "
                "миллион миллиона миллионов млн мільйон мільйона мільйонів milyon "
                "مليون ملايين میلیون מיליון मिलियन"
            ),
            10_000_000: "crore crores करोड़ करोड",
            1_000_000_000: (
                "billion billions bn milliarde milliarden mrd mrd. milliard milliards "
                "mil-millones miliardo miliardi miljard miljarden miliard miliardy miliardów "
                "миллиард миллиарда миллиардов млрд мільярд мільярда мільярдів milyar "
                "مليار مليارات میلیارد מיליארד बिलियन अरब"
            ),
            1_000_000_000_000: "trillion trillions billionen bilion bilionów триллион трлн",
        }
    ),
}
# Chinese and Japanese scales written straight after the digits (150万, 1.2亿), and Korean's.
CJK_SCALES = {"十": 10, "百": 100, "千": 1_000, "万": 10_000, "萬": 10_000, "만": 10_000}
CJK_SCALES |= {"亿": 100_000_000, "億": 100_000_000, "억": 100_000_000, "兆": 10**12}
CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4}
CJK_DIGITS |= {"五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

PERCENT = frozenset(
    w.casefold()
    for w in [
        "percent",
        "per-cent",
        "pct",
        "prozent",
        "procent",
        "pour-cent",
        "por-ciento",
        "por-cento",
        "per-cento",
        "procent",
        "procentów",
        "procenta",
        "procenty",
        "процент",
        "процента",
        "процентов",
        "відсоток",
        "відсотка",
        "відсотків",
        "yüzde",
        "درصد",
        "بالمئة",
        "بالمائة",
        "אחוז",
        "אחוזים",
        "प्रतिशत",
    ]
)
# Two-word spellings: "per cent", "pour cent", "por ciento", "por cento", "per cento", "في المئة".
PERCENT_PAIRS = frozenset({("per", "cent"), ("pour", "cent"), ("por", "ciento")})
PERCENT_PAIRS |= {("por", "cento"), ("per", "cento"), ("في", "المئة"), ("في", "المائة")}
PERCENT_SIGNS = "%\u066a\uff05"  # %, Arabic ٪, full-width ％
# Chinese "百分之十二" is 12%.
CJK_PERCENT = ("百分之",)

MONTHS = _table(
    {
        1: (
            "january jan januar janv janvier enero ene janeiro gennaio gen januari styczeń "
            "stycznia января январь январе січня січень ocak ocak'ta يناير كانون-الثاني "
            "ژانویه ינואר जनवरी"
        ),
        2: (
            "february feb februar févr février febrero febr fevereiro fev febbraio februari "
            "luty lutego февраля февраль лютого лютий şubat فبراير شباط فوریه פברואר फ़रवरी "
            "फरवरी"
        ),
        3: (
            "march mar märz mrz mars marzo março marzo maart marzec marca марта март "
            "березня березень mart مارس آذار מרץ मार्च"
        ),
        4: (
            "april apr avr avril abril abr aprile apr kwiecień kwietnia апреля апрель "
            "квітня квітень nisan أبريل نيسان آوریل אפריל अप्रैल"
        ),
        5: (
            "may mai mayo maio maggio mag mei maj maja мая май травня травень mayıs مايو أيار "
            "مه מאי मई"
        ),
        6: (
            "june jun juni juin junio junho giugno giu czerwiec czerwca июня июнь червня "
            "червень haziran يونيو حزيران ژوئن יוני जून"
        ),
        7: (
            "july jul juli juil juillet julio julho luglio lug lipiec lipca июля июль липня "
            "липень temmuz يوليو تموز ژوئیه יולי जुलाई"
        ),
        8: (
            "august aug août agosto ago augustus sierpień sierpnia августа август серпня "
            "серпень ağustos أغسطس آب اوت אוגוסט अगस्त"
        ),
        9: (
            "september sep sept septembre septiembre setembro set settembre wrzesień "
            "września сентября сентябрь вересня вересень eylül سبتمبر أيلول سپتامبر ספטמבר "
            "सितंबर सितम्बर"
        ),
        10: (
            "october oct oktober okt octobre octubre outubro out ottobre ott października "
            "październik октября октябрь жовтня жовтень ekim أكتوبر تشرين-الأول اکتبر "
            "אוקטובר अक्टूबर"
        ),
        11: (
            "november nov novembre noviembre novembro listopad listopada ноября ноябрь "
            "листопада листопад kasım نوفمبر تشرين-الثاني نوامبر נובמבר नवंबर नवम्बर"
        ),
        12: (
            "december dec dezember dez décembre déc diciembre dic dezembro dicembre grudzień "
            "grudnia декабря декабрь грудня грудень aralık ديسمبر كانون-الأول دسامبر "
            "דצמבר दिसंबर दिसम्बर"
        ),
    }
)
# Words of MONTHS that are also common words: a month only beside a day or a year.
AMBIGUOUS_MONTHS = frozenset(
    [
        "may",
        "mar",
        "jan",
        "jun",
        "jul",
        "aug",
        "sep",
        "set",
        "out",
        "gen",
        "mag",
        "lug",
        "ott",
        "dic",
    ]
)
AMBIGUOUS_MONTHS |= {"dez", "mai", "mart", "ocak", "nisan", "ekim", "aralık", "mei", "maj"}

NEGATIONS = frozenset(
    w.casefold()
    for w in _words(
        # English
        "not no never none nor neither nobody nothing cannot without n't nowhere "
        # German
        "nicht kein keine keinen keiner keines keinem nie niemals ohne "
        # French
        "ne n' pas jamais aucun aucune sans "
        # Spanish, Portuguese, Italian
        "nunca ningún ninguna ninguno sin tampoco não nenhum nenhuma sem non nessuno "
        "nessuna nessun senza "
        # Dutch, Polish
        "niet geen nooit zonder nie nigdy żaden żadna żadne bez "
        # Russian, Ukrainian
        "не нет ни никогда ні ніколи без "
        # Turkish, Arabic, Persian, Hebrew, Hindi
        "değil yok hiç لا لم لن ليس ليست غير نه نیست نمی ندارد نبود نکرد نشد نباید نخواهد "
        "לא אין אינו אינה नहीं न मत"
    )
)
# Words that negate by their meaning ("avoid feeding" is "do not feed", "unlike a heap, a
# bucket can" is "a heap cannot"): evidence holding one may carry a claim's negation.
NEGATIVE_WORDS = frozenset(
    _words(
        "avoid avoids avoided avoiding unlike instead rather lack lacks lacking lacked fail "
        "fails failed prevent prevents prevented absent except refuse refuses "
        "vermeiden vermeide statt anstatt ohne éviter évitez évite plutôt evitar evite "
        "evitare invece вместо избегать избегайте"
    )
)
# Korean negation: 안 and 못 before the verb, 않 and 없 in it.
KOREAN_NEGATIONS = ("않", "없", "못 ", "안 ")
JAPANESE_NEGATIONS = ("ない", "ません", "なかった", "ず、", "ず。")
# Chinese negation characters, and the compounds holding one that negate nothing.
CJK_NEGATIONS = "不没沒未无無非别勿莫"
CJK_NOT_NEGATIONS = [
    "不仅",
    "不但",
    "不同",
    "不断",
    "不少",
    "不久",
    "不过",
    "不論",
    "不论",
    "无论",
    "無論",
    "非常",
    "未来",
    "未來",
    "無比",
    "无比",
    "不错",
    "不錯",
    "非洲",
    "别的",
    "別的",
    "别人",
    "莫斯科",
]

GERMAN_HINTS = frozenset(
    [
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "mit",
        "von",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einer",
        "sich",
        "auch",
        "wird",
        "werden",
        "wurde",
        "sind",
        "im",
        "auf",
        "für",
        "bei",
        "zum",
        "zur",
    ]
)
# Words a sentence opens with that may carry a capital without naming anyone (the first
# word's capital says nothing): articles, pronouns, conjunctions and the like.
OPENERS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "with",
        "as",
        "after",
        "before",
        "during",
        "since",
        "while",
        "when",
        "where",
        "while",
        "although",
        "though",
        "however",
        "but",
        "and",
        "or",
        "so",
        "thus",
        "hence",
        "also",
        "yet",
        "still",
        "there",
        "here",
        "some",
        "many",
        "most",
        "all",
        "each",
        "every",
        "both",
        "one",
        "two",
        "our",
        "we",
        "they",
        "he",
        "she",
        "i",
        "you",
        "his",
        "her",
        "their",
        "such",
        "other",
        "another",
        "if",
        "because",
        "unlike",
        "like",
        "le",
        "la",
        "les",
        "un",
        "une",
        "des",
        "du",
        "de",
        "en",
        "dans",
        "pour",
        "par",
        "avec",
        "ce",
        "cette",
        "ces",
        "il",
        "elle",
        "ils",
        "elles",
        "el",
        "los",
        "las",
        "uno",
        "una",
        "en",
        "con",
        "por",
        "para",
        "este",
        "esta",
        "estos",
        "estas",
        "o",
        "os",
        "um",
        "uma",
        "em",
        "com",
        "il",
        "lo",
        "gli",
        "una",
        "per",
        "con",
        "questo",
        "questa",
        "der",
        "die",
        "das",
        "ein",
        "eine",
        "in",
        "im",
        "mit",
        "für",
        "von",
        "zu",
        "het",
        "een",
        "de",
        "dit",
        "deze",
    ]
)
