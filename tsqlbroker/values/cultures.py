"""The .NET cultures FORMAT and PARSE / TRY_PARSE know: one table of the CultureInfo data they
read (separators, currency, date and time patterns, month and day names, AM/PM, the numeric date
order of DateTime.Parse).

SQL Server hands FORMAT and PARSE to the .NET Framework, whose culture data is Windows' own (NLS,
as Windows 10 / Server 2016 and later report it), not the ICU data of .NET on Linux: where the two
differ (en-GB's long date ``dd MMMM yyyy``, nl-NL's short date ``d-M-yyyy`` …) the table holds
NLS's. Names are matched without regard to case; a neutral name (``de``, ``pt``, ``zh-Hans`` …) is
its default specific culture, as .NET Framework formats with it. Any other name is Msg 9818
(docs/decisions.md, "PARSE / FORMAT cultures").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tsqlbroker.errors import tsql_error

__all__ = ["CULTURES", "Culture", "culture"]

NBSP = "\u00a0"
NNBSP = "\u202f"


@dataclass(frozen=True)
class Culture:
    """What FORMAT and PARSE read of a .NET CultureInfo. Patterns: ``n`` stands for the number
    and ``$`` for the currency symbol (.NET's CurrencyPositivePattern / CurrencyNegativePattern
    written out); day names run Monday to Sunday (Python's ``weekday()``)."""

    group: str
    decimal: str
    currency: str
    currency_positive: str
    currency_negative: str
    percent_positive: str
    short_date: str
    long_date: str
    short_time: str
    long_time: str
    month_day: str
    year_month: str
    am: str
    pm: str
    months: tuple[str, ...]
    month_abbr: tuple[str, ...]
    days: tuple[str, ...]
    day_abbr: tuple[str, ...]
    order: str  # DateTime.Parse's order of a numeric date: 'mdy', 'dmy' or 'ymd'
    date_sep: str = "/"
    time_sep: str = ":"
    currency_digits: int = 2
    group_sizes: tuple[int, ...] = (3,)
    # Genitive month names, used by FORMAT for MMMM / MMM next to a day number ('d MMMM').
    months_genitive: tuple[str, ...] = ()
    month_abbr_genitive: tuple[str, ...] = ()
    # More currency symbols PARSE takes (ja-JP's full-width yen).
    currency_extra: tuple[str, ...] = field(default=())


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _numbered(suffix: str) -> tuple[str, ...]:
    return tuple(f"{i}{suffix}" for i in range(1, 13))


_EN_MONTHS = _words("January February March April May June July August September October "
                    "November December")
_EN_MONTH_ABBR = tuple(m[:3] for m in _EN_MONTHS)
_EN_DAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
_EN_DAY_ABBR = tuple(d[:3] for d in _EN_DAYS)
_DE_MONTHS = _words("Januar Februar März April Mai Juni Juli August September Oktober November "
                    "Dezember")
_DE_MONTH_ABBR = _words("Jan Feb Mär Apr Mai Jun Jul Aug Sep Okt Nov Dez")
_DE_DAYS = _words("Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag")
_DE_DAY_ABBR = _words("Mo Di Mi Do Fr Sa So")
_FR_MONTHS = _words("janvier février mars avril mai juin juillet août septembre octobre "
                    "novembre décembre")
_FR_DAYS = _words("lundi mardi mercredi jeudi vendredi samedi dimanche")
_FR_DAY_ABBR = _words("lun. mar. mer. jeu. ven. sam. dim.")
_ES_MONTHS = _words("enero febrero marzo abril mayo junio julio agosto septiembre octubre "
                    "noviembre diciembre")
_ES_MONTH_ABBR = _words("ene. feb. mar. abr. may. jun. jul. ago. sep. oct. nov. dic.")
_ES_DAYS = _words("lunes martes miércoles jueves viernes sábado domingo")
_ES_DAY_ABBR = _words("lu. ma. mi. ju. vi. sá. do.")
_PT_MONTHS = _words("janeiro fevereiro março abril maio junho julho agosto setembro outubro "
                    "novembro dezembro")
_PT_MONTH_ABBR = _words("jan fev mar abr mai jun jul ago set out nov dez")
_PT_DAYS = _words("segunda-feira terça-feira quarta-feira quinta-feira sexta-feira sábado "
                  "domingo")
_PT_DAY_ABBR = _words("seg ter qua qui sex sáb dom")
_NO_DAYS = _words("mandag tirsdag onsdag torsdag fredag lørdag søndag")
_ZH_MONTHS = _words("一月 二月 三月 四月 五月 六月 七月 八月 九月 十月 十一月 十二月")
_ZH_DAYS = _words("星期一 星期二 星期三 星期四 星期五 星期六 星期日")
_EN_TIMES = ("h:mm tt", "h:mm:ss tt")
_24H = ("HH:mm", "HH:mm:ss")
_24H_SHORT = ("H:mm", "H:mm:ss")

_EN_US = Culture(",", ".", "$", "$n", "($n)", "n %", "M/d/yyyy", "dddd, MMMM d, yyyy",
                 *_EN_TIMES, "MMMM d", "MMMM yyyy", "AM", "PM", _EN_MONTHS, _EN_MONTH_ABBR,
                 _EN_DAYS, _EN_DAY_ABBR, "mdy")
_DE_DE = Culture(".", ",", "€", "n $", "-n $", "n %", "dd.MM.yyyy", "dddd, d. MMMM yyyy", *_24H,
                 "d. MMMM", "MMMM yyyy", "", "", _DE_MONTHS, _DE_MONTH_ABBR, _DE_DAYS,
                 _DE_DAY_ABBR, "dmy", date_sep=".")
_FR_FR = Culture(NNBSP, ",", "€", "n $", "-n $", "n %", "dd/MM/yyyy", "dddd d MMMM yyyy", *_24H,
                 "d MMMM", "MMMM yyyy", "", "", _FR_MONTHS,
                 _words("janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc."),
                 _FR_DAYS, _FR_DAY_ABBR, "dmy")
_ES_ES = Culture(".", ",", "€", "n $", "-n $", "n %", "dd/MM/yyyy",
                 "dddd, d' de 'MMMM' de 'yyyy", *_24H_SHORT, "d 'de' MMMM", "MMMM' de 'yyyy",
                 "", "", _ES_MONTHS, _ES_MONTH_ABBR, _ES_DAYS, _ES_DAY_ABBR, "dmy")
_PT_BR = Culture(".", ",", "R$", "$ n", "-$ n", "n%", "dd/MM/yyyy",
                 "dddd, d' de 'MMMM' de 'yyyy", *_24H, "d 'de' MMMM", "MMMM' de 'yyyy", "", "",
                 _PT_MONTHS, _PT_MONTH_ABBR, _PT_DAYS, _PT_DAY_ABBR, "dmy")
_NB_NO = Culture(NBSP, ",", "kr", "$ n", "$ -n", "n %", "dd.MM.yyyy", "d. MMMM yyyy", *_24H,
                 "d. MMMM", "MMMM yyyy", "", "",
                 _words("januar februar mars april mai juni juli august september oktober "
                        "november desember"),
                 _words("jan feb mar apr mai jun jul aug sep okt nov des"), _NO_DAYS,
                 _words("man tir ons tor fre lør søn"), "dmy", date_sep=".")
_ZH_CN = Culture(",", ".", "¥", "$n", "$-n", "n%", "yyyy/M/d", "yyyy'年'M'月'd'日'", *_24H_SHORT,
                 "M'月'd'日'", "yyyy'年'M'月'", "上午", "下午", _ZH_MONTHS, _numbered("月"),
                 _ZH_DAYS, _words("周一 周二 周三 周四 周五 周六 周日"), "ymd")
_ZH_TW = Culture(",", ".", "NT$", "$n", "-$n", "n%", "yyyy/M/d", "yyyy'年'M'月'd'日'",
                 "tt hh:mm", "tt hh:mm:ss", "M'月'd'日'", "yyyy'年'M'月'", "上午", "下午",
                 _ZH_MONTHS, _ZH_MONTHS, _ZH_DAYS,
                 _words("週一 週二 週三 週四 週五 週六 週日"), "ymd")
_INVARIANT = Culture(",", ".", "¤", "$n", "($n)", "n %", "MM/dd/yyyy", "dddd, dd MMMM yyyy",
                     *_24H, "MMMM dd", "yyyy MMMM", "AM", "PM", _EN_MONTHS, _EN_MONTH_ABBR,
                     _EN_DAYS, _EN_DAY_ABBR, "mdy", currency_extra=("$",))

CULTURES: dict[str, Culture] = {
    "": _INVARIANT,
    "en-us": _EN_US,
    "en-gb": Culture(",", ".", "£", "$n", "-$n", "n%", "dd/MM/yyyy", "dd MMMM yyyy", *_24H,
                     "d MMMM", "MMMM yyyy", "am", "pm", _EN_MONTHS, _EN_MONTH_ABBR, _EN_DAYS,
                     _EN_DAY_ABBR, "dmy"),
    "en-au": Culture(",", ".", "$", "$n", "-$n", "n%", "d/MM/yyyy", "dddd, d MMMM yyyy",
                     *_EN_TIMES, "d MMMM", "MMMM yyyy", "AM", "PM", _EN_MONTHS, _EN_MONTH_ABBR,
                     _EN_DAYS, _EN_DAY_ABBR, "dmy"),
    "en-ca": Culture(",", ".", "$", "$n", "-$n", "n%", "yyyy-MM-dd", "MMMM d, yyyy", *_EN_TIMES,
                     "MMMM d", "MMMM, yyyy", "a.m.", "p.m.", _EN_MONTHS, _EN_MONTH_ABBR,
                     _EN_DAYS, _EN_DAY_ABBR, "ymd", date_sep="-"),
    "en-in": Culture(",", ".", "₹", "$ n", "$ -n", "n%", "dd-MM-yyyy", "dd MMMM yyyy", *_24H,
                     "d MMMM", "MMMM yyyy", "AM", "PM", _EN_MONTHS, _EN_MONTH_ABBR, _EN_DAYS,
                     _EN_DAY_ABBR, "dmy", date_sep="-", group_sizes=(3, 2)),
    "de-de": _DE_DE,
    "de-at": Culture(".", ",", "€", "$ n", "-$ n", "n %", "dd.MM.yyyy", "dddd, d. MMMM yyyy",
                     *_24H, "d. MMMM", "MMMM yyyy", "", "",
                     ("Jänner", *_DE_MONTHS[1:]), ("Jän", *_DE_MONTH_ABBR[1:]), _DE_DAYS,
                     _DE_DAY_ABBR, "dmy", date_sep="."),
    "de-ch": Culture("'", ".", "CHF", "$ n", "$-n", "n%", "dd.MM.yyyy", "dddd, d. MMMM yyyy",
                     *_24H, "d. MMMM", "MMMM yyyy", "", "", _DE_MONTHS, _DE_MONTH_ABBR,
                     _DE_DAYS, _DE_DAY_ABBR, "dmy", date_sep="."),
    "fr-fr": _FR_FR,
    "fr-ca": Culture(NBSP, ",", "$", "n $", "(n $)", "n %", "yyyy-MM-dd", "d MMMM yyyy", *_24H,
                     "d MMMM", "MMMM, yyyy", "", "", _FR_MONTHS,
                     _words("janv. févr. mars avr. mai juin juill. août sept. oct. nov. déc."),
                     _FR_DAYS, _FR_DAY_ABBR, "ymd", date_sep="-"),
    "es-es": _ES_ES,
    "es-mx": Culture(",", ".", "$", "$n", "-$n", "n%", "dd/MM/yyyy",
                     "dddd, d' de 'MMMM' de 'yyyy", "hh:mm tt", "hh:mm:ss tt", "d 'de' MMMM",
                     "MMMM' de 'yyyy", "a. m.", "p. m.", _ES_MONTHS, _ES_MONTH_ABBR, _ES_DAYS,
                     _ES_DAY_ABBR, "dmy"),
    "it-it": Culture(".", ",", "€", "n $", "-n $", "n%", "dd/MM/yyyy", "dddd d MMMM yyyy", *_24H,
                     "d MMMM", "MMMM yyyy", "", "",
                     _words("gennaio febbraio marzo aprile maggio giugno luglio agosto settembre "
                            "ottobre novembre dicembre"),
                     _words("gen feb mar apr mag giu lug ago set ott nov dic"),
                     _words("lunedì martedì mercoledì giovedì venerdì sabato domenica"),
                     _words("lun mar mer gio ven sab dom"), "dmy"),
    "pt-br": _PT_BR,
    "pt-pt": Culture(NBSP, ",", "€", "n $", "-n $", "n%", "dd/MM/yyyy",
                     "dddd, d' de 'MMMM' de 'yyyy", *_24H, "d 'de' MMMM", "MMMM' de 'yyyy", "",
                     "", _PT_MONTHS, _PT_MONTH_ABBR, _PT_DAYS, _PT_DAY_ABBR, "dmy"),
    "nl-nl": Culture(".", ",", "€", "$ n", "$ -n", "n%", "d-M-yyyy", "dddd d MMMM yyyy", *_24H,
                     "d MMMM", "MMMM yyyy", "", "",
                     _words("januari februari maart april mei juni juli augustus september "
                            "oktober november december"),
                     _words("jan feb mrt apr mei jun jul aug sep okt nov dec"),
                     _words("maandag dinsdag woensdag donderdag vrijdag zaterdag zondag"),
                     _words("ma di wo do vr za zo"), "dmy", date_sep="-"),
    "sv-se": Culture(NBSP, ",", "kr", "n $", "-n $", "n %", "yyyy-MM-dd", "'den 'd MMMM yyyy",
                     *_24H, "'den 'd MMMM", "MMMM yyyy", "fm", "em",
                     _words("januari februari mars april maj juni juli augusti september "
                            "oktober november december"),
                     _words("jan feb mar apr maj jun jul aug sep okt nov dec"),
                     _words("måndag tisdag onsdag torsdag fredag lördag söndag"),
                     _words("mån tis ons tor fre lör sön"), "ymd", date_sep="-"),
    "da-dk": Culture(".", ",", "kr.", "n $", "-n $", "n %", "dd-MM-yyyy", "d. MMMM yyyy", *_24H,
                     "d. MMMM", "MMMM yyyy", "", "",
                     _words("januar februar marts april maj juni juli august september oktober "
                            "november december"),
                     _words("jan feb mar apr maj jun jul aug sep okt nov dec"), _NO_DAYS,
                     _words("ma ti on to fr lø sø"), "dmy", date_sep="-"),
    "nb-no": _NB_NO,
    "fi-fi": Culture(NBSP, ",", "€", "n $", "-n $", "n %", "d.M.yyyy", "dddd d. MMMM yyyy",
                     *_24H_SHORT, "d. MMMM", "MMMM yyyy", "ap.", "ip.",
                     _words("tammikuu helmikuu maaliskuu huhtikuu toukokuu kesäkuu heinäkuu "
                            "elokuu syyskuu lokakuu marraskuu joulukuu"),
                     _words("tammi helmi maalis huhti touko kesä heinä elo syys loka marras "
                            "joulu"),
                     _words("maanantai tiistai keskiviikko torstai perjantai lauantai "
                            "sunnuntai"),
                     _words("ma ti ke to pe la su"), "dmy", date_sep=".",
                     months_genitive=_words("tammikuuta helmikuuta maaliskuuta huhtikuuta "
                                            "toukokuuta kesäkuuta heinäkuuta elokuuta "
                                            "syyskuuta lokakuuta marraskuuta joulukuuta")),
    "pl-pl": Culture(NBSP, ",", "zł", "n $", "-n $", "n%", "dd.MM.yyyy", "dddd, d MMMM yyyy",
                     *_24H, "d MMMM", "MMMM yyyy", "", "",
                     _words("styczeń luty marzec kwiecień maj czerwiec lipiec sierpień "
                            "wrzesień październik listopad grudzień"),
                     _words("sty lut mar kwi maj cze lip sie wrz paź lis gru"),
                     _words("poniedziałek wtorek środa czwartek piątek sobota niedziela"),
                     _words("Pn Wt Śr Cz Pt So N"), "dmy", date_sep=".",
                     months_genitive=_words("stycznia lutego marca kwietnia maja czerwca "
                                            "lipca sierpnia września października listopada "
                                            "grudnia")),
    "ru-ru": Culture(NBSP, ",", "₽", "n $", "-n $", "n%", "dd.MM.yyyy", "d MMMM yyyy 'г.'",
                     *_24H_SHORT, "d MMMM", "MMMM yyyy", "", "",
                     _words("Январь Февраль Март Апрель Май Июнь Июль Август Сентябрь Октябрь "
                            "Ноябрь Декабрь"),
                     _words("янв фев мар апр май июн июл авг сен окт ноя дек"),
                     _words("понедельник вторник среда четверг пятница суббота воскресенье"),
                     _words("Пн Вт Ср Чт Пт Сб Вс"), "dmy", date_sep=".",
                     months_genitive=_words("января февраля марта апреля мая июня июля "
                                            "августа сентября октября ноября декабря"),
                     month_abbr_genitive=_words("янв фев мар апр мая июн июл авг сен окт ноя "
                                                "дек")),
    "cs-cz": Culture(NBSP, ",", "Kč", "n $", "-n $", "n %", "dd.MM.yyyy", "dddd d. MMMM yyyy",
                     *_24H_SHORT, "d. MMMM", "MMMM yyyy", "dop.", "odp.",
                     _words("leden únor březen duben květen červen červenec srpen září říjen "
                            "listopad prosinec"),
                     _words("led úno bře dub kvě čvn čvc srp zář říj lis pro"),
                     _words("pondělí úterý středa čtvrtek pátek sobota neděle"),
                     _words("po út st čt pá so ne"), "dmy", date_sep=".",
                     months_genitive=_words("ledna února března dubna května června července "
                                            "srpna září října listopadu prosince")),
    "tr-tr": Culture(".", ",", "₺", "$n", "-$n", "%n", "d.MM.yyyy", "d MMMM yyyy dddd", *_24H,
                     "d MMMM", "MMMM yyyy", "ÖÖ", "ÖS",
                     _words("Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim "
                            "Kasım Aralık"),
                     _words("Oca Şub Mar Nis May Haz Tem Ağu Eyl Eki Kas Ara"),
                     _words("Pazartesi Salı Çarşamba Perşembe Cuma Cumartesi Pazar"),
                     _words("Pzt Sal Çar Per Cum Cmt Paz"), "dmy", date_sep="."),
    "ja-jp": Culture(",", ".", "¥", "$n", "-$n", "n%", "yyyy/MM/dd", "yyyy'年'M'月'd'日'",
                     *_24H_SHORT, "M'月'd'日'", "yyyy'年'M'月'", "午前", "午後", _numbered("月"),
                     _numbered("月"),
                     _words("月曜日 火曜日 水曜日 木曜日 金曜日 土曜日 日曜日"),
                     _words("月 火 水 木 金 土 日"), "ymd", currency_digits=0,
                     currency_extra=("￥",)),
    "ko-kr": Culture(",", ".", "₩", "$n", "-$n", "n%", "yyyy-MM-dd", "yyyy'년' M'월' d'일' dddd",
                     "tt h:mm", "tt h:mm:ss", "M'월' d'일'", "yyyy'년' M'월'", "오전", "오후",
                     _numbered("월"), _numbered("월"),
                     _words("월요일 화요일 수요일 목요일 금요일 토요일 일요일"),
                     _words("월 화 수 목 금 토 일"), "ymd", date_sep="-", currency_digits=0),
    "zh-cn": _ZH_CN,
    "zh-tw": _ZH_TW,
}
# Neutral cultures and other names of a specific one: .NET Framework formats and parses with
# the neutral culture's default specific culture.
for _alias, _target in {
    "invariant": "", "en": "en-us", "de": "de-de", "fr": "fr-fr", "es": "es-es", "it": "it-it",
    "pt": "pt-br", "nl": "nl-nl", "sv": "sv-se", "da": "da-dk", "nb": "nb-no", "no": "nb-no",
    "fi": "fi-fi", "pl": "pl-pl", "ru": "ru-ru", "cs": "cs-cz", "tr": "tr-tr", "ja": "ja-jp",
    "ko": "ko-kr", "zh": "zh-cn", "zh-hans": "zh-cn", "zh-chs": "zh-cn",}.items():
    CULTURES[_alias] = CULTURES[_target]


def culture(name: str | None) -> Culture:
    """The culture named (None: en-US, the session language us_english's); Msg 9818 when .NET
    knows it but this table does not, or it is no culture at all."""
    found = CULTURES.get("en-us" if name is None else name.strip().lower())
    if found is None:
        raise tsql_error(9818, name)
    return found
